// `faultline components [--json]`: every component this build registers, with its contracts
// (signals and stability, singleton, requires/provides, before, reads, metrics) and config keys.
import { defaultRegistry } from '../components.js';
import { componentsText, describeComponent } from './component-docs.js';

export function componentsCommand(options: { json?: boolean }): void {
  const components = defaultRegistry().list().map(describeComponent);
  process.stdout.write(options.json ? `${JSON.stringify(components, null, 2)}\n` : componentsText(components));
}
