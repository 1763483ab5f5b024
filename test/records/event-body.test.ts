// Issue #30, item 1: an event stored as its received body plus a derived record reads back as
// exactly the document the previous layout stored (eventDocumentJson of the event the pipeline
// made). A corpus of bodies - the bench's, the e2e tests' full event, SDK-shaped edge cases, real
// V8 stack traces symbolicated through a real esbuild map - runs through the real validation,
// scrubbing, symbolication and grouping processors; each event is then encoded both ways.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventBodies } from '../../bench/payloads.js';
import { groupingConfigSchema } from '../../processors/grouping/config.js';
import { groupingFactory } from '../../processors/grouping/factory.js';
import { ScrubbingProcessor } from '../../processors/scrubbing/processor.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import { isLive, type Item } from '../../src/engine/item.js';
import { SCRUBBING_DEFAULTS } from '../../src/records/data-scrubbing.js';
import { decodeStoredEvent, encodeStoredEvent, isStoredBody, keepMappedBody, keepReceivedBody, storedEventJson } from '../../src/records/event-body.js';
import { mapSentryEvent } from '../../receivers/http-api/sentry/event.js';
import { sentryEvent } from '../support/sentry-events.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { fullEvent } from '../support/service.js';
import { testHost, type TestHost } from '../support/test-host.js';
import { bundle, framesOf, load, removeSources, writeSources, type Bundle } from '../processors/symbolication/fixture.js';
import { InMemoryArtifacts, processorsShutDownAfterEach, RELEASE, SCOPE, TENANT, uploadedApp } from '../processors/symbolication/helpers.js';

type Json = Record<string, unknown>;

let issuesHost: TestHost;
let dir: string;
let app: Bundle;
let appExports: ReturnType<typeof load>;
const symbolication = processorsShutDownAfterEach();

beforeAll(async () => {
  issuesHost = await testHost({ extensions: ['issues'] });
  dir = writeSources();
  app = await bundle(dir);
  appExports = load(app.code);
});
afterAll(async () => {
  removeSources(dir);
  await issuesHost?.close();
});

/** As POST /v1/events leaves a body: parsed, with its bytes. */
function ingestItem(body: Json): Item {
  const bytes = Buffer.from(JSON.stringify(body));
  return { data: keepReceivedBody(JSON.parse(bytes.toString('utf8')), bytes), tenant: TENANT, receivedAt: Date.now(), size: bytes.length };
}

/** As the Sentry routes leave an envelope's event item: mapped to the ingest body, marked to be stored as the body. */
function sentryItem(payload: Json, headerEventId?: string): Item {
  const bytes = Buffer.from(JSON.stringify(payload));
  const receivedAt = Date.now();
  const mapped = mapSentryEvent(JSON.parse(bytes.toString('utf8')) as Json, receivedAt, headerEventId);
  if (!mapped.ok) throw new Error(mapped.reason);
  keepMappedBody(mapped.body);
  return { data: mapped.body, tenant: TENANT, receivedAt, size: bytes.length, notes: mapped.notes };
}

/** The bodies through the real processors, each item carrying its bytes as the receiver leaves them. */
async function pipeline(
  bodies: Json[],
  itemOf: (body: Json) => Item = ingestItem,
  artifacts: InMemoryArtifacts = uploadedApp(app),
): Promise<Array<{ body: Json; event: ErrorEvent }>> {
  const items = bodies.map((body) => itemOf(body));
  const grouping = groupingFactory.create({
    id: { type: 'grouping', text: 'grouping' },
    config: groupingConfigSchema.parse({}),
    host: issuesHost.host,
    signal: 'events',
    pipeline: 'events',
  });
  const processors = [
    new EventValidationProcessor(validationConfigSchema.parse({})),
    new ScrubbingProcessor('events', SCRUBBING_DEFAULTS, undefined),
    symbolication(artifacts),
    grouping,
  ];
  for (const processor of processors) await processor.process(items.filter(isLive));
  for (const item of items) expect(item.outcome, JSON.stringify(item.outcome)).toBeUndefined();
  return items.map((item, i) => ({ body: bodies[i], event: item.data as ErrorEvent }));
}

/** The stored value as the DocStore reads it back (text). */
function storedText(event: ErrorEvent): string {
  const stored = encodeStoredEvent(event);
  return typeof stored === 'string' ? stored : stored.toString('utf8');
}

/** Compares both layouts for each event; returns how many took the body layout. */
function expectSameDocuments(events: Array<{ event: ErrorEvent }>): number {
  let bodies = 0;
  for (const { event } of events) {
    const before = eventDocumentJson(event);
    const stored = storedText(event);
    if (isStoredBody(stored)) bodies++;
    expect(storedEventJson(stored)).toBe(before);
    // What recovery and duplicates rebuild from it is the event (less what the document leaves out).
    expect(eventDocumentJson(decodeStoredEvent(stored))).toBe(before);
  }
  return bodies;
}

const NOW = new Date(Date.now() - 60_000).toISOString();
const base = (extra: Json = {}): Json => ({
  timestamp: NOW,
  environment: 'production',
  release: RELEASE,
  exception: {
    type: 'TypeError',
    value: 'x is undefined',
    stacktrace: [
      { filename: 'app.js', function: 'main', lineno: 1, colno: 2, in_app: true },
      { filename: 'node_modules/react-dom/index.js', function: 'render', lineno: 10, colno: 3 },
      { abs_path: '/srv/app/node_modules/@sentry/core/x.js', function: 'wrap', lineno: 5, in_app: true },
    ],
  },
  ...extra,
});

/** Bodies that validation takes as they are (the body layout applies) and ones it changes (stored whole). */
const KEPT: Record<string, Json> = {
  'no id, numeric tags and user id': base({
    user: { id: 42, email: 'a@example.com' },
    tags: { n: 1, b: false, s: 'x' },
    exception: { type: 'E', value: 'v', mechanism: { type: 'onerror', handled: false }, stacktrace: [{ function: 'f', in_app: false }] },
  }),
  'an id in capitals without dashes, level omitted, a cause chain with frames': base({
    id: '0192F0A47B1C7D2E8F00123456789ABC',
    exception: {
      type: 'Outer',
      value: 'wrapped',
      stacktrace: [{ filename: 'a.js', function: 'outer', lineno: 1 }],
      cause: { type: 'Inner', value: 'root', module: 'm', stacktrace: [{ filename: 'node_modules/lib/b.js', function: 'inner', lineno: 2 }] },
    },
  }),
  'unicode, line separators, escapes and an empty stack trace': base({
    message: 'naïve — 💥 \u2028 "quoted" \\ back',
    exception: { type: 'Ω', value: '\u0000 nul and 𝄞' },
    contexts: { extra: { nested: [1, 'two', { three: null }] } },
    request: { url: 'https://x.example/ä?q=1', method: 'POST', headers: { Accept: 'text/html' }, data: { list: [1, 2] } },
    fingerprint: ['{{ default }}', 'checkout'],
    breadcrumbs: [{ timestamp: '2026-01-01T00:00:00.000Z', message: 'm', level: 'info', data: { k: 'v' } }],
  }),
  'a timestamp in the future (clamped to the time of receipt)': base({ timestamp: new Date(Date.now() + 86_400_000).toISOString() }),
  'debug_meta with images as validation writes them': base({
    debug_meta: {
      images: [
        { type: 'sourcemap', code_file: 'https://cdn.example.com/app.js', debug_id: '0192f0a4-7b1c-7d2e-8f00-123456789abc' },
        { type: 'elf', debug_id: 'abcdef0123456789abcdef0123456789', code_file: '/lib/x.so', image_addr: '0x1000', image_size: 4096 },
      ],
    },
  }),
  'a trace id already in lower case, a replay id and dist': base({ trace_id: 'abcdef0123456789abcdef0123456789', replay_id: 'rpl_1', dist: 'x86' }),
};
const CHANGED: Record<string, Json> = {
  'a message over the cap': base({ message: 'm'.repeat(20_000) }),
  'a breadcrumb time without milliseconds': base({ breadcrumbs: [{ timestamp: '2026-01-01T00:00:00Z', message: 'm' }] }),
  'a trace id in capitals': base({ trace_id: 'ABCDEF0123456789ABCDEF0123456789' }),
  'too many frames': base({ exception: { type: 'E', value: 'v', stacktrace: Array.from({ length: 400 }, (_, i) => ({ function: `f${i}`, lineno: i })) } }),
  'an empty tag key': base({ tags: { '': 'x', ok: 'y' } }),
  'debug_meta with a debug id in capitals': base({
    debug_meta: { images: [{ type: 'sourcemap', code_file: 'app.js', debug_id: '0192F0A4-7B1C-7D2E-8F00-123456789ABC' }] },
  }),
  'debug_meta with an image type symbolication does not use': base({ debug_meta: { images: [{ type: 'wasm', code_file: 'x' }] } }),
  "debug_meta with an image's fields in another order": base({
    debug_meta: { images: [{ debug_id: '0192f0a4-7b1c-7d2e-8f00-123456789abc', type: 'sourcemap', code_file: 'app.js' }] },
  }),
  'unknown fields, one of them a secret the scrubber would not see': base({
    credentials: { password: 'hunter2' },
    user: { id: 'u', unknown: true },
    exception: { type: 'E', value: 'v', stacktrace: [{ function: 'f', weird: 1 }] },
  }),
  'a password in the request (scrubbed)': base({ request: { url: 'https://x.example/?password=hunter2', data: { password: 'hunter2' } } }),
};

describe('the body layout reads back as the previous document', () => {
  it('for the bench bodies: every one is stored as received', async () => {
    const bench = eventBodies(60).bodies.map((bytes) => JSON.parse(bytes.toString('utf8')) as Json);
    const events = await pipeline(bench);
    expect(expectSameDocuments(events)).toBe(bench.length);
    // Its value is the received bytes behind a derived record far smaller than the document.
    const stored = encodeStoredEvent(events[0].event) as Buffer;
    const bytes = Buffer.from(JSON.stringify(events[0].body));
    expect(stored.subarray(stored.length - bytes.length).equals(bytes)).toBe(true);
    expect(stored.length - bytes.length).toBeLessThan(eventDocumentJson(events[0].event).length / 3);
  });

  it('for bodies validation keeps (body layout) and ones it changes or scrubs (stored whole)', async () => {
    const kept = await pipeline([...Object.values(KEPT), fullEvent()]);
    expect(expectSameDocuments(kept)).toBe(kept.length);
    // Grouping marked the vendor frames not in-app: the derived record carries it.
    const doc = JSON.parse(storedEventJson(storedText(kept[0].event))) as { exception: { stacktrace: Json[] } };
    expect(doc.exception.stacktrace.map((f) => f.in_app)).toEqual([false]);
    const vendor = JSON.parse(storedEventJson(storedText(kept[1].event))) as { exception: { cause: { stacktrace: Json[] } } };
    expect(vendor.exception.cause.stacktrace[0].in_app).toBe(false);

    const changed = await pipeline(Object.values(CHANGED));
    expect(expectSameDocuments(changed)).toBe(0);
    const scrubbed = changed.at(-1)?.event as ErrorEvent;
    expect(scrubbed.scrubbed?.length).toBeGreaterThan(0);
    // Neither what the scrubber removed nor what validation discarded is stored.
    for (const { event } of changed.slice(-2)) expect(storedText(event)).not.toContain('hunter2');
  });

  it('for frames symbolicated through a real source map: the new frames whole, the received ones by index', async () => {
    const { frames, type, value } = framesOf(() => appExports.run([{ price: 3 }]));
    const cause = framesOf(() => appExports.run([{ price: 5 }]));
    const events = await pipeline([
      base({ platform: 'node', exception: { type, value, stacktrace: frames } }),
      base({
        exception: { type: 'Wrapper', value: 'w', stacktrace: frames.slice(0, 2), cause: { type: cause.type, value: cause.value, stacktrace: cause.frames } },
      }),
    ]);
    const [event, chained] = events.map((e) => e.event);
    expect(event.raw_stacktrace).toBeDefined();
    expect(chained.exception.cause?.raw_stacktrace).toBeDefined();
    expect(expectSameDocuments(events)).toBe(2);
    const stored = storedText(event);
    const derived = JSON.parse(stored.slice(1, stored.indexOf('\n'))) as { chain: Array<{ f?: unknown[] }> };
    const f = derived.chain[0].f ?? [];
    expect(f.some((frame) => typeof frame === 'number')).toBe(true);
    expect(f.some((frame) => typeof frame === 'object')).toBe(true);
  });

  it('for a Java exception ProGuard renamed: the type and module in the derived record', async () => {
    const uuid = '7a1c3a4e-5b6d-4e8f-9a0b-1c2d3e4f5a6b';
    const artifacts = new InMemoryArtifacts();
    const mapping = [
      'com.example.shop.InvalidCartException -> com.example.shop.d:',
      'com.example.shop.CheckoutActivity -> com.example.shop.a:',
      '    1:1:void onCreate(android.os.Bundle):20:20 -> onCreate',
    ].join('\n');
    artifacts.add(SCOPE, { name: 'mapping.txt', type: 'proguard', content: mapping, debug_id: uuid });
    const frames = [{ module: 'com.example.shop.a', function: 'onCreate', filename: 'SourceFile', lineno: 1, in_app: true }];
    const events = await pipeline(
      [
        base({
          platform: 'java',
          exception: { module: 'com.example.shop', type: 'd', value: 'empty', stacktrace: frames },
          debug_meta: { images: [{ type: 'proguard', uuid }] },
        }),
      ],
      ingestItem,
      artifacts,
    );
    expect(events[0].event.exception).toMatchObject({ module: 'com.example.shop', type: 'InvalidCartException' });
    expect(events[0].event.raw_stacktrace).toBeDefined();
    expect(expectSameDocuments(events)).toBe(1);
  });

  it('for Sentry payloads: the ingest body the routes mapped them to, nothing the mapping left out', async () => {
    // The support payload, with a vendor frame, contexts with a trace id in capitals, and fields the mapping leaves out.
    const payload = (n: number, extra: Json = {}): Json => {
      const sent = sentryEvent(n, {
        release: RELEASE,
        level: 'warn',
        contexts: { trace: { trace_id: 'ABCDEF0123456789abcdef0123456789', span_id: '0123456789abcdef' }, os: { name: 'Linux' } },
        sdk: { name: 'sentry.javascript.browser', version: '8.0.0', integrations: ['a'] },
        request: { url: 'https://shop.example/cart', headers: { 'User-Agent': 'x' } },
        modules: { react: '18.0.0' },
        user: { id: 42, email: 'ada@example.com', data: { session_secret: 'hunter2' } },
        ...extra,
      });
      const values = (sent.exception as { values: Array<{ stacktrace: { frames: Json[] } }> }).values;
      values[1].stacktrace.frames.unshift({ filename: 'app:///node_modules/x/y.js', function: 'lib', lineno: 1, colno: 2, in_app: true });
      return sent;
    };
    const payloads = [
      payload(1),
      payload(2, { event_id: undefined }),
      payload(3, { timestamp: 'not a time', level: 'nonsense', logentry: { message: 'hi %s', params: ['x'] } }),
    ];
    const events = await pipeline(payloads, (p) => sentryItem(p, p.event_id === undefined ? 'b'.repeat(32) : undefined));
    expect(expectSameDocuments(events)).toBe(payloads.length);
    // The stored body is the mapped ingest body: what the mapping left out (modules, the user's data) is not on disk.
    const stored = storedText(events[0].event);
    const body = JSON.parse(stored.slice(stored.indexOf('\n') + 1)) as Json;
    expect(body.exception).toBeDefined();
    expect(stored).not.toContain('hunter2');
    expect(stored).not.toContain('react');
  });

  it('reads documents of the previous layout as they are', () => {
    const [event] = [
      JSON.parse(eventDocumentJson({ ...(base() as unknown as ErrorEvent), id: 'x', project_id: 'p', received_at: NOW, processing_errors: [] })),
    ];
    const old = JSON.stringify(event);
    expect(isStoredBody(old)).toBe(false);
    expect(storedEventJson(old)).toBe(old);
  });
});
