// The control_plane extension's public interface.
import { optionalExtension, type ExtensionLookup } from '../../src/engine/extension.js';
import type { ControlPlane } from './control-plane.js';
import { ControlPlaneExtension } from './extension.js';

export * from './control-plane.js';
export { changeKey, type ControlChange } from './control-journal.js';
export { controlPlaneExtensionFactory } from './factory.js';
export { ControlPlaneExtension } from './extension.js';

/** The shared control plane, when the extension runs with brokers. */
export function controlPlaneOf(host: ExtensionLookup): ControlPlane | undefined {
  return optionalExtension(host, 'control_plane', ControlPlaneExtension)?.plane;
}
