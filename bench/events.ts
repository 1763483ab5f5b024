// Events as SDKs send them (payloads.ts's SDK-like events), three ways: one per POST /v1/events,
// and Sentry envelopes of 1 and of 10 event items on POST /api/<ingest id>/envelope/ with the DSN
// key; each at 25 %, 70 % and 100 % of capacity (levels.ts) against the service child and, with
// the same bodies and driver, the bare baseline child (baseline-server.ts).
import type { BaselineServer } from './baseline-server.js';
import { measureLevels, type LevelOptions, type LevelResult } from './levels.js';
import type { IdBodies } from './payloads.js';
import { sentryTarget, type ChildService } from './service.js';

export type EventsVariant = 'POST /v1/events' | 'envelope, 1 event' | 'envelope, 10 events';

export interface EventsLevels {
  variant: EventsVariant;
  itemsPerRequest: number;
  averageBytes: number;
  faultline: LevelResult[];
  bare: LevelResult[];
}

export type EventsLevelOptions = Omit<LevelOptions, 'nextBody' | 'itemsPerRequest' | 'label'>;

/** One variant on the service and on the bare server. */
export async function measureEventsVariant(
  variant: EventsVariant,
  bodies: IdBodies,
  service: ChildService,
  bare: BaselineServer,
  options: EventsLevelOptions & { bareSampler?: LevelOptions['sampler'] },
): Promise<EventsLevels> {
  const json = { 'content-type': 'application/json' };
  const envelope = variant !== 'POST /v1/events';
  const target = envelope
    ? { pid: service.pid, baseUrl: service.baseUrl, ...(await sentryTarget(service.baseUrl, service.liveKey)) }
    : { pid: service.pid, baseUrl: service.baseUrl, path: '/v1/events', headers: { authorization: `Bearer ${service.liveKey}`, ...json } };
  const bareTarget = { pid: bare.pid, baseUrl: bare.url, path: envelope ? '/api/1/envelope/' : '/v1/events', headers: json };
  await acceptsEveryItem(target, bodies.nextBody());
  const common = { ...options, nextBody: () => bodies.nextBody(), itemsPerRequest: bodies.itemsPerBody };
  options.log?.(`  ${variant}: Faultline`);
  const faultline = await measureLevels(target, { ...common, label: `events ${variant}` });
  options.log?.(`  ${variant}: bare node:http`);
  const bareLevels = await measureLevels(bareTarget, { ...common, label: `bare ${variant}`, sampler: options.bareSampler });
  return { variant, itemsPerRequest: bodies.itemsPerBody, averageBytes: bodies.averageBytes, faultline, bare: bareLevels };
}

/** One request before the loads: every item is counted as accepted later, so none may be skipped. */
async function acceptsEveryItem(target: { baseUrl: string; path: string; headers: Record<string, string> }, body: Buffer): Promise<void> {
  const res = await fetch(`${target.baseUrl}${target.path}`, { method: 'POST', headers: target.headers, body });
  const text = await res.text();
  if (!res.ok || text.includes('"skipped"')) throw new Error(`POST ${target.path} answered ${res.status}: ${text.slice(0, 300)}`);
}
