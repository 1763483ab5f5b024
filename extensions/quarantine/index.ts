// The quarantine extension's public interface.
import { requireExtension, type ExtensionLookup } from '../../src/engine/extension.js';
import { QuarantineExtension } from './extension.js';
import type { Quarantine } from './quarantine.js';

export * from './quarantine.js';
export { QUARANTINE_MIGRATIONS } from './migrations.js';
export { quarantineExtensionFactory } from './factory.js';
export { QuarantineExtension } from './extension.js';

/** Where exporters keep acknowledged items they cannot store (a component that declares `extensions: ['quarantine']`). */
export function quarantineOf(host: ExtensionLookup): Quarantine {
  return requireExtension(host, 'quarantine', QuarantineExtension).quarantine;
}
