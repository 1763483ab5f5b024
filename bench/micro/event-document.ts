// Standalone micro-measure of how an event is stored by the duckdb exporter (issue #30, item 1):
// the whole document (eventDocumentJson, the previous layout) against the received body plus a
// derived record (src/records/event-body.ts), on the bench's event bodies run through the real
// validation and grouping processors. For each: CPU µs and bytes allocated per event to encode
// the stored value, to read it back as the document JSON (what GET /v1/events/{id} returns), and
// the stored size; and the encode of the same events sent as Sentry events (their mapped ingest
// body serialized). Run: `npx tsc -p bench/tsconfig.json && node --expose-gc --max-semi-space-size=64 dist/bench/micro/event-document.js`.
// Figures are per event over a few thousand encodes; a busy machine makes them noisy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupingConfigSchema } from '../../processors/grouping/config.js';
import { groupingFactory } from '../../processors/grouping/factory.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import { defaultRegistry } from '../../src/components.js';
import type { Item } from '../../src/engine/item.js';
import { defaultSettings, startExtensionHost } from '../../src/extension-host.js';
import { mapSentryEvent } from '../../receivers/http-api/sentry/event.js';
import { decodeStoredEvent, encodeStoredEvent, isStoredBody, keepMappedBody, keepReceivedBody, storedEventJson } from '../../src/records/event-body.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { eventBodies } from '../payloads.js';

const EVENTS = 600;
const ROUNDS = 8;
const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;

interface Measure {
  cpuMicros: number;
  allocatedBytes: number;
}

/** A bench body as a Sentry SDK would send it (exception values, breadcrumbs under values, seconds). */
function asSentryPayload(body: Record<string, unknown>): Record<string, unknown> {
  const { exception, breadcrumbs, timestamp, ...rest } = body as { exception: Record<string, unknown>; breadcrumbs: unknown[]; timestamp: string };
  const { stacktrace, ...exceptionRest } = exception;
  return {
    ...rest,
    event_id: undefined,
    timestamp: Date.parse(timestamp) / 1000,
    exception: { values: [{ ...exceptionRest, stacktrace: { frames: stacktrace } }] },
    breadcrumbs: { values: breadcrumbs },
  };
}

/** The items the Sentry routes make of the bodies sent as Sentry events (mapped, marked to be stored as the body). */
function sentryItems(bodies: Buffer[]): Item[] {
  return bodies.map((bytes) => {
    const receivedAt = Date.now();
    const mapped = mapSentryEvent(asSentryPayload(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>), receivedAt);
    if (!mapped.ok) throw new Error(mapped.reason);
    keepMappedBody(mapped.body);
    return { data: mapped.body, tenant: TENANT, receivedAt, size: bytes.length, notes: mapped.notes };
  });
}

/** The items POST /v1/events makes of the bodies (each with its bytes). */
function ingestItems(bodies: Buffer[]): Item[] {
  return bodies.map((bytes) => ({
    data: keepReceivedBody(JSON.parse(bytes.toString('utf8')), bytes),
    tenant: TENANT,
    receivedAt: Date.now(),
    size: bytes.length,
  }));
}

/** The items through validation and grouping. */
async function pipelineEvents(items: Item[]): Promise<ErrorEvent[]> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-doc-'));
  const opened = await startExtensionHost({
    registry: defaultRegistry(),
    types: ['issues'],
    settings: defaultSettings(dir, { auth: { bootstrap: false } }),
  });
  try {
    new EventValidationProcessor(validationConfigSchema.parse({})).process(items);
    const grouping = groupingFactory.create({
      id: { type: 'grouping', text: 'grouping' },
      config: groupingConfigSchema.parse({}),
      host: opened.host,
      signal: 'events',
      pipeline: 'events',
    });
    await grouping.process(items);
    return items.filter((item) => item.outcome === undefined).map((item) => item.data as ErrorEvent);
  } finally {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
const CHUNK = 50;

/**
 * CPU per call of `work` over every input, and bytes allocated per call: the heap's growth over a
 * chunk of calls, from a collected heap, taking the largest over the chunks (a collection during a
 * chunk only makes its growth smaller). Run with a young generation large enough for a chunk
 * (--max-semi-space-size=64) and --expose-gc.
 */
function measure<T>(inputs: T[], work: (input: T) => unknown): Measure {
  for (const input of inputs) work(input); // warm the JIT
  const cpu0 = process.cpuUsage();
  for (let round = 0; round < ROUNDS; round++) for (const input of inputs) work(input);
  const cpu = process.cpuUsage(cpu0);
  let allocated = 0;
  const kept = new Array<unknown>(CHUNK);
  for (let start = 0; gc && start + CHUNK <= inputs.length; start += CHUNK) {
    gc();
    const before = process.memoryUsage();
    for (let i = 0; i < CHUNK; i++) kept[i] = work(inputs[start + i]);
    const after = process.memoryUsage();
    allocated = Math.max(allocated, after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers);
  }
  return { cpuMicros: (cpu.user + cpu.system) / (ROUNDS * inputs.length), allocatedBytes: allocated / CHUNK };
}

function textOf(stored: string | Buffer): string {
  return typeof stored === 'string' ? stored : stored.toString('utf8');
}

async function main(): Promise<void> {
  const { bodies, averageBytes } = eventBodies(EVENTS);
  const events = await pipelineEvents(ingestItems(bodies));
  const sentryEvents = await pipelineEvents(sentryItems(bodies));
  const wholeDocs = events.map((event) => eventDocumentJson(event));
  const bodyValues = events.map((event) => encodeStoredEvent(event));
  const bodyTexts = bodyValues.map(textOf);
  const stored = bodyValues.filter(isStoredBody).length;

  const rows: Array<[string, Measure]> = [
    ['encode: whole document (before)', measure(events, (event) => eventDocumentJson(event))],
    ['encode: body + derived record', measure(events, (event) => encodeStoredEvent(event))],
    ['Sentry events, encode: whole document (before)', measure(sentryEvents, (event) => eventDocumentJson(event))],
    ['Sentry events, encode: mapped body + derived record', measure(sentryEvents, (event) => encodeStoredEvent(event))],
    ['read as document JSON: whole document (before)', measure(wholeDocs, (doc) => storedEventJson(doc))],
    ['read as document JSON: body + derived record', measure(bodyTexts, (text) => storedEventJson(text))],
    ['rebuild the event (restart, duplicates): whole document', measure(wholeDocs, (doc) => decodeStoredEvent(doc))],
    ['rebuild the event (restart, duplicates): body + derived', measure(bodyTexts, (text) => decodeStoredEvent(text))],
  ];
  const mean = (values: Array<{ length: number }>) => values.reduce((sum, v) => sum + v.length, 0) / values.length;
  console.log(`${events.length} bench events, mean body ${Math.round(averageBytes)} B; stored as body + derived record: ${stored} of ${events.length}`);
  const sentryStored = sentryEvents.map((event) => encodeStoredEvent(event)).filter(isStoredBody).length;
  console.log(`the same as Sentry events: stored as mapped body + derived record: ${sentryStored} of ${sentryEvents.length}`);
  console.log(`stored bytes per event: whole document ${Math.round(mean(wholeDocs))} B, body + derived record ${Math.round(mean(bodyValues))} B`);
  if (!gc) console.log('bytes allocated need --expose-gc (and --max-semi-space-size=64): shown as 0');
  for (const [label, m] of rows)
    console.log(`${label.padEnd(58)} ${m.cpuMicros.toFixed(1).padStart(7)} µs CPU  ${Math.round(m.allocatedBytes).toString().padStart(7)} B allocated`);
}

await main();
