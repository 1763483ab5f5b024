// Loading the reads' data through the service's public ingest routes (issue #24): N SDK-like
// events as Sentry envelopes of 100 event items on POST /api/<ingest id>/envelope/, and N spans
// as OTLP/HTTP protobuf requests of 1,000 spans on the OTLP port, several requests in flight.
// Events: the 200 errors over 3 releases of payloads.ts (so 200 issues), 4 environments,
// timestamps spread over the last 30 days in the order they are sent, as live SDK traffic arrives
// (the service runs with 365 days of retention; DuckDB's zone maps on the time then serve the
// pages' look-back windows as they would in use), every event its own id, 30 % carrying the id of a loaded trace (spans are loaded first). Spans: traces of 5-20 spans from the real OpenTelemetry SDK, fresh ids per
// request. A sample of the event and trace ids sent is kept for the one-event and one-trace reads.
import { postMany } from './bulk-http.js';
import { SpanPayloads, sdkEventSets } from './payloads.js';
import { sentryTarget, type ChildService } from './service.js';

const DAY_MS = 24 * 3600 * 1000;
/** The events' times: from 30 days ago up to an hour ago, in the order sent. */
const SPREAD_MS = 30 * DAY_MS - 3600_000;
/** Recorded with a loaded data directory: an earlier load sent its events in random time order. */
export const LOAD_ORDER = 'time';
/** Event items per envelope and spans per OTLP request while loading. */
export const EVENTS_PER_ENVELOPE = 100;
export const SPANS_PER_REQUEST = 1000;
const IN_FLIGHT = 8;
const SAMPLE = 200;
/** Trace ids (a uniform sample of those loaded) that linked events draw from. */
const LINKABLE_TRACES = 20_000;

export interface LoadResult {
  events: number;
  spans: number;
  traces: number;
  /** Wall seconds of the whole load, and of each part. */
  seconds: number;
  eventSeconds: number;
  spanSeconds: number;
  /** Ids sent (a uniform sample), for the reads of one event and one trace. */
  eventIds: string[];
  traceIds: string[];
}

/** Keeps a uniform sample of what it is offered (reservoir sampling, deterministic). */
class Reservoir {
  readonly items: string[] = [];
  private seen = 0;
  private state = 12345;

  constructor(private readonly size: number) {}

  offer(item: string): void {
    this.seen++;
    if (this.items.length < this.size) this.items.push(item);
    else {
      this.state = (Math.imul(this.state, 1103515245) + 12345) >>> 0;
      const at = this.state % this.seen;
      if (at < this.size) this.items[at] = item;
    }
  }
}

const dashed = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export async function loadOverHttp(svc: ChildService, events: number, spans: number, log: (line: string) => void): Promise<LoadResult> {
  const started = performance.now();
  // Spans first: 30 % of the events then carry the id of a loaded trace, as the trace read expects.
  const payloads = new SpanPayloads(SPANS_PER_REQUEST, 4);
  const requests = Math.ceil(spans / SPANS_PER_REQUEST);
  const traceIds = new Reservoir(SAMPLE);
  const linkable = new Reservoir(LINKABLE_TRACES);
  let traces = 0;
  const spanLoad = await postMany({
    baseUrl: svc.otlpUrl,
    path: '/v1/traces',
    headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/x-protobuf' },
    requests,
    concurrency: IN_FLIGHT,
    next: () => {
      const { body, traceIds: ids } = payloads.nextBodyWithTraceIds();
      traces += ids.length;
      for (const id of ids) {
        traceIds.offer(id);
        linkable.offer(id);
      }
      return body;
    },
    progress: (done) => log(`    ${(done * SPANS_PER_REQUEST).toLocaleString('en-US')} spans…`),
  });
  log(`  ${(requests * SPANS_PER_REQUEST).toLocaleString('en-US')} spans in ${spanLoad.seconds.toFixed(1)} s (${spanLoad.retried} retried)`);

  const sets = sdkEventSets(4000, { envelopeItems: EVENTS_PER_ENVELOPE, linkedTraces: 0.3, timeMarks: true });
  let pick = 0;
  sets.envelope10.traceSource = () => linkable.items[pick++ % linkable.items.length];
  const envelopes = Math.ceil(events / EVENTS_PER_ENVELOPE);
  const first = Date.now() - SPREAD_MS;
  let sent = 0;
  sets.envelope10.timeSource = () => first + Math.floor((sent++ / (envelopes * EVENTS_PER_ENVELOPE)) * SPREAD_MS);
  const eventIds = new Reservoir(SAMPLE);
  let skipped = 0;
  const sentry = await sentryTarget(svc.baseUrl, svc.liveKey);
  const eventLoad = await postMany({
    baseUrl: svc.baseUrl,
    ...sentry,
    requests: envelopes,
    concurrency: IN_FLIGHT,
    next: () => {
      const { body, ids } = sets.envelope10.nextBodyWithIds();
      for (const id of ids) eventIds.offer(dashed(id));
      return body;
    },
    onAnswer: (body) => {
      if (body.includes('"skipped"')) skipped += (JSON.parse(body) as { skipped: unknown[] }).skipped.length;
    },
    progress: (done) => log(`    ${(done * EVENTS_PER_ENVELOPE).toLocaleString('en-US')} events…`),
  });
  if (skipped) throw new Error(`the service skipped ${skipped} envelope items`);
  log(`  ${(envelopes * EVENTS_PER_ENVELOPE).toLocaleString('en-US')} events in ${eventLoad.seconds.toFixed(1)} s (${eventLoad.retried} retried)`);
  return {
    events: envelopes * EVENTS_PER_ENVELOPE,
    spans: requests * SPANS_PER_REQUEST,
    traces,
    seconds: (performance.now() - started) / 1000,
    eventSeconds: eventLoad.seconds,
    spanSeconds: spanLoad.seconds,
    eventIds: eventIds.items,
    traceIds: traceIds.items,
  };
}
