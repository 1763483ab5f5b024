// A cron check-in that reaches the service another way than the monitors' own routes (a Sentry
// SDK's `check_in` envelope item), handed to the component that keeps monitors, when one runs.
import type { Tenant } from '../engine/item.js';

export interface CheckinSink {
  /** Takes a Sentry `check_in` item's payload; resolves with the check-in's id, or why it was skipped. */
  takeSentryCheckin(tenant: Tenant, payload: unknown): Promise<{ checkInId: string } | { skipped: string }>;
}
