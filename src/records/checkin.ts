// A cron check-in that reaches the service another way than the monitors' own routes (a Sentry
// SDK's `check_in` envelope item), handed to the component that keeps monitors, when one runs.
import { requireExtension, type Extension, type ExtensionLookup } from '../engine/extension.js';
import type { Tenant } from '../engine/item.js';

export interface CheckinSink {
  /** Takes a Sentry `check_in` item's payload; resolves with the check-in's id, or why it was skipped. */
  takeSentryCheckin(tenant: Tenant, payload: unknown): Promise<{ checkInId: string } | { skipped: string }>;
}

export const CHECKINS_EXTENSION = 'checkins';

/**
 * A built-in extension (id `checkins`) joining the two receivers: the monitors receiver sets its
 * sink when it runs; the Sentry routes hand `check_in` items to it, or skip them when it is unset.
 */
export class CheckinRelay implements Extension {
  sink?: CheckinSink;
}

export function checkinsOf(host: ExtensionLookup): CheckinRelay {
  return requireExtension(host, CHECKINS_EXTENSION, CheckinRelay);
}
