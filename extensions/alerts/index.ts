// The alerts extension's public interface.
import { requireExtension, type ExtensionLookup } from '../../src/engine/extension.js';
import type { Alerts } from './alerts.js';
import { AlertsExtension } from './extension.js';

export * from './alerts.js';
export * from './alert-rules.js';
export * from './alert-outbox.js';
export * from './alert-sharing.js';
export * from './alert-limits.js';
export { ALERTS_MIGRATIONS } from './migrations.js';
export { alertsExtensionFactory } from './factory.js';
export { AlertsExtension } from './extension.js';

/** Alert rules, firings and deliveries (a component that declares `extensions: ['alerts']`). */
export function alertsOf(host: ExtensionLookup): Alerts {
  return requireExtension(host, 'alerts', AlertsExtension).alerts;
}
