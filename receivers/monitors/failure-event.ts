// The error event a monitor failure adds to the monitor's issue: one issue per monitor (its own
// fingerprint), titled `Monitor failure: <slug>`, so alert rules and notifications treat it as
// any other issue.
import { v5 as uuidv5 } from 'uuid';
import { monitorId, type Monitor } from '../../src/storage/monitors.js';

export type FailureKind = 'missed' | 'timeout' | 'error' | 'down';

export interface FailureDetails {
  kind: FailureKind;
  at: number;
  /** missed: the run that was expected; timeout: when the run started. */
  expectedAt?: number;
  /** down: what the last check saw. */
  check?: { status_code: number | null; error: string | null; latency_ms: number | null };
  /**
   * What makes this failure this one (the run's check-in id, the expected time, the failing check's
   * time): the event id derives from it, so a failure recorded twice (a check-in delivered again,
   * two nodes deciding during a rebalance) is one event to reads.
   */
  ref: string;
}

/** The namespace of failure event ids (a v5 UUID of `faultline.monitors` under the URL namespace). */
const FAILURE_NAMESPACE = uuidv5('faultline.monitors', uuidv5.URL);

export function failureEventId(monitor: Monitor, kind: FailureKind, ref: string): string {
  return uuidv5(`${monitorId(monitor)}/${kind}/${ref}`, FAILURE_NAMESPACE);
}

const DESCRIBE: Record<FailureKind, string> = {
  missed: 'no check-in arrived for the run expected at',
  timeout: 'a run did not finish within its maximum runtime; it started at',
  error: 'a run reported an error',
  down: 'the site failed its uptime checks',
};

export function failureEvent(monitor: Monitor, details: FailureDetails): Record<string, unknown> {
  const when = details.expectedAt === undefined ? '' : ` ${new Date(details.expectedAt).toISOString()}`;
  const check = details.check ? ` (${details.check.error ?? `HTTP ${details.check.status_code}`})` : '';
  return {
    id: failureEventId(monitor, details.kind, details.ref),
    timestamp: new Date(details.at).toISOString(),
    level: 'error',
    platform: 'other',
    // Both are required of every event; a monitor's runs belong to no release of the application.
    environment: monitor.environment ?? 'production',
    release: 'monitors',
    message: `${monitor.name}: ${DESCRIBE[details.kind]}${when}${check}`,
    exception: { type: 'Monitor failure', value: monitor.slug },
    fingerprint: ['monitor', monitor.type, monitor.slug],
    tags: { 'monitor.slug': monitor.slug, 'monitor.type': monitor.type, 'monitor.failure': details.kind },
    contexts: {
      monitor: {
        slug: monitor.slug,
        name: monitor.name,
        type: monitor.type,
        failure: details.kind,
        ...(details.expectedAt !== undefined ? { expected_at: new Date(details.expectedAt).toISOString() } : {}),
        ...(monitor.cron ? { schedule: monitor.cron.schedule } : {}),
        ...(monitor.uptime ? { url: monitor.uptime.url } : {}),
        ...(details.check ?? {}),
      },
    },
  };
}
