// The artifacts extension's public interface.
import { requireExtension, type ExtensionLookup } from '../../src/engine/extension.js';
import type { ArtifactStore } from './artifacts.js';
import { ArtifactsExtension } from './extension.js';

export * from './artifacts.js';
export { ARTIFACTS_MIGRATIONS } from './migrations.js';
export { artifactsExtensionFactory } from './factory.js';
export { ArtifactsExtension } from './extension.js';

/** The artifact store; processors use it as an ArtifactLookup (a component that declares `extensions: ['artifacts']`). */
export function artifactsOf(host: ExtensionLookup): ArtifactStore {
  return requireExtension(host, 'artifacts', ArtifactsExtension).store;
}
