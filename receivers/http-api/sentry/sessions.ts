// Release health from `session` items (one session's updates) and `sessions` items (aggregates
// that server SDKs send): how many sessions each release started, and how they ended.
import type { SessionCounts } from '../../../extensions/sentry-ingest/index.js';
import { isJsonObject, type JsonObject } from './envelope.js';

/** Counts SDKs send are small whole numbers; anything absurd is capped (the sums are BIGINT columns). */
export const MAX_COUNT = 1_000_000_000;
const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? Math.min(value, MAX_COUNT) : 0);

function scope(attrs: unknown, fallback: JsonObject): { release: string; environment: string } | undefined {
  const source = isJsonObject(attrs) ? attrs : {};
  const release = source.release ?? fallback.release;
  if (typeof release !== 'string' || release === '') return undefined;
  const environment = source.environment ?? fallback.environment;
  return { release, environment: typeof environment === 'string' && environment !== '' ? environment : 'production' };
}

/**
 * A session update: the first one (`init: true`) starts a session; the one that ends it says how
 * (`crashed`, `abnormal`, or `exited`/`errored` with errors).
 */
export function sessionCounts(payload: JsonObject): SessionCounts | undefined {
  const where = scope(payload.attrs, payload);
  if (!where) return undefined;
  const status = typeof payload.status === 'string' ? payload.status : 'ok';
  const ended = status !== 'ok';
  return {
    ...where,
    sessions: payload.init === true ? 1 : 0,
    crashed: status === 'crashed' ? 1 : 0,
    abnormal: status === 'abnormal' ? 1 : 0,
    errored: ended && (status === 'errored' || (status === 'exited' && count(payload.errors) > 0)) ? 1 : 0,
    users: userOf(payload.did, status === 'crashed'),
  };
}

/** The session's distinct id (the SDK's `did`, a user id or email), for crash-free users; capped. */
function userOf(did: unknown, crashed: boolean): Array<{ id: string; crashed: boolean }> {
  return typeof did === 'string' && did !== '' ? [{ id: did.slice(0, 256), crashed }] : [];
}

/** Session aggregates: `{aggregates: [{started, exited, errored, abnormal, crashed}], attrs}`. */
export function aggregateCounts(payload: JsonObject): SessionCounts | undefined {
  const where = scope(payload.attrs, payload);
  if (!where || !Array.isArray(payload.aggregates)) return undefined;
  const out: SessionCounts = { ...where, sessions: 0, crashed: 0, errored: 0, abnormal: 0, users: [] };
  for (const bucket of payload.aggregates) {
    if (!isJsonObject(bucket)) continue;
    const crashed = count(bucket.crashed);
    const errored = count(bucket.errored);
    const abnormal = count(bucket.abnormal);
    out.users?.push(...userOf(bucket.did, crashed > 0));
    out.sessions += count(bucket.exited) + errored + abnormal + crashed;
    out.crashed += crashed;
    out.errored += errored;
    out.abnormal += abnormal;
  }
  return out;
}
