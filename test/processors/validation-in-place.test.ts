// Issue #30, "parse once": validation makes the event of a body POST /v1/events parsed out of
// that body's own objects (the compiled accept-path's reuse mode, then the post-pass and the
// processor writing onto them), instead of copying every object and array. What it outputs must be
// exactly zod's output (values, keys and their order), the body must stay untouched when the path
// is unsure (zod then reads it as received), and the received body must be stored as received only
// while it still reproduces the event.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventBodies, sdkEventSets } from '../../bench/payloads.js';
import { compileAccept, UNSURE } from '../../processors/validation/compiled.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import { validateEvent } from '../../processors/validation/validate.js';
import type { Item } from '../../src/engine/item.js';
import { encodeStoredEvent, isStoredBody, keepReceivedBody, receivedBodyOf, storedEventJson } from '../../src/records/event-body.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import { errorEventInputSchema } from '../../src/records/event-schema.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { expectCompiledParity, parityCounts } from '../support/validation-parity.js';

type Json = Record<string, unknown>;

const reuse = compileAccept(errorEventInputSchema, { reuse: true });
const config = validationConfigSchema.parse({});
const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;

/** The bench's SDK-like event bodies, as POST /v1/events receives them. */
function sdkBodies(count: number): Buffer[] {
  const sets = sdkEventSets(count);
  return Array.from({ length: count }, () => sets.single.nextBody());
}

/** A body in zod's own key order (its output serialized), so that nothing in it needs a change. */
function normalBody(): Json {
  const body = JSON.parse(sdkBodies(1)[0].toString('utf8')) as Json;
  return JSON.parse(JSON.stringify(errorEventInputSchema.parse(body))) as Json;
}

/** As POST /v1/events leaves a body: parsed, with its bytes. */
function ingestItem(bytes: Buffer): Item {
  return { data: keepReceivedBody(JSON.parse(bytes.toString('utf8')), bytes), tenant: TENANT, receivedAt: Date.now(), size: bytes.length };
}

function validated(items: Item[]): ErrorEvent[] {
  new EventValidationProcessor(config).process(items);
  for (const item of items) expect(item.outcome, JSON.stringify(item.outcome)).toBeUndefined();
  return items.map((item) => item.data as ErrorEvent);
}

describe('the accept-path in reuse mode', () => {
  it("equals zod's output (values and JSON) on the bench's SDK events and realistic events, and leaves them unchanged", () => {
    const before = parityCounts.accepted;
    const bodies = [...sdkBodies(300), ...eventBodies(300).bodies];
    for (const bytes of bodies) expectCompiledParity(JSON.parse(bytes.toString('utf8')));
    expect(parityCounts.accepted - before).toBe(bodies.length);
  });

  it('returns a body that needs no change itself, every object and array in it too', () => {
    const body = normalBody();
    const exception = body.exception as { stacktrace: Json[] };
    expect(reuse?.(body)).toBe(body);
    const result = validateEvent(body, config, true);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.event).toBe(body);
    expect(result.event.exception.stacktrace).toBe(exception.stacktrace);
    expect(result.event.exception.stacktrace?.[0]).toBe(exception.stacktrace[0]);
    expect(result.event.breadcrumbs).toBe(body.breadcrumbs);
    expect(result.event.tags).toBe(body.tags);
    expect(result.rewritten).toBe(false);
  });

  it("makes anew only the objects zod's output changes (keys out of order, unknown, defaulted, transformed), and those above them", () => {
    const body = normalBody();
    const frames = (body.exception as { stacktrace: Json[] }).stacktrace;
    const cases: Array<[string, (b: Json) => void]> = [
      ['top-level keys out of order', (b) => ((b.message = 'moved last'), delete b.level, (b.level = 'error'))],
      ['a default filled in', (b) => delete b.level],
      ['a frame with an unknown key', (b) => ((b.exception as { stacktrace: Json[] }).stacktrace[1].weird = 1)],
      ['a frame with its keys out of order', (b) => ((b.exception as { stacktrace: Json[] }).stacktrace[2] = { lineno: 3, filename: 'x.js' })],
      ['a numeric tag', (b) => ((b.tags as Json).n = 5)],
      ['a numeric user id', (b) => ((b.user as Json).id = 42)],
      [
        'a __proto__ key in a frame',
        (b) => ((b.exception as { stacktrace: Json[] }).stacktrace[0] = JSON.parse('{"filename":"a.js","__proto__":{"x":1}}') as Json),
      ],
    ];
    for (const [name, change] of cases) {
      const raw = structuredClone(body);
      change(raw);
      const rawJson = JSON.stringify(raw);
      const out = reuse?.(raw) as Json;
      expect(out, name).not.toBe(UNSURE);
      expect(JSON.stringify(out), name).toBe(JSON.stringify(errorEventInputSchema.parse(JSON.parse(rawJson))));
      expect(out, name).toStrictEqual(errorEventInputSchema.parse(JSON.parse(rawJson)));
      expect(JSON.stringify(raw), `${name}: the body is left as it was`).toBe(rawJson);
      expect(out, name).not.toBe(raw);
      // What did not change is shared.
      expect(out.breadcrumbs, name).toBe(raw.breadcrumbs);
      expect(out.contexts, name).toBe(raw.contexts);
    }
    expect(frames.length).toBeGreaterThan(3);
  });

  it('is unsure, and writes nothing, where the copy mode is: __proto__ in a loose object or a record, a key holding undefined', () => {
    const body = normalBody();
    for (const change of [
      (b: Json) => (b.contexts = JSON.parse('{"os":{"__proto__":{"polluted":true}}}') as Json),
      (b: Json) => (b.tags = JSON.parse('{"__proto__":"x"}') as Json),
      (b: Json) => (b.message = undefined),
    ]) {
      const raw = structuredClone(body);
      change(raw);
      const keys = Object.keys(raw).join();
      expect(reuse?.(raw)).toBe(UNSURE);
      expect(compileAccept(errorEventInputSchema)?.(raw)).toBe(UNSURE);
      expect(Object.keys(raw).join()).toBe(keys);
    }
  });

  it('copies an array with holes (zod outputs each hole as an element), as the copy mode does', () => {
    const schema = z.object({ list: z.array(z.unknown()), strict: z.object({ a: z.string().optional() }), loose: z.looseObject({ a: z.string() }) });
    const copy = compileAccept(schema);
    const reusing = compileAccept(schema, { reuse: true });
    // eslint-disable-next-line no-sparse-arrays
    const holes = { list: [1, , 3], strict: {}, loose: { a: 'x', b: 1 } };
    const out = reusing?.(holes) as { list: unknown[]; strict: object; loose: object };
    expect(out).toStrictEqual(copy?.(holes));
    expect(out.list).not.toBe(holes.list);
    expect(1 in out.list).toBe(true);
    expect(out.strict).toBe(holes.strict);
    expect(out.loose).toBe(holes.loose);
    // A loose object's own keys must come first: zod puts the others after them.
    const late = { list: [], strict: {}, loose: { b: 1, a: 'x' } };
    const reordered = reusing?.(late) as { loose: object };
    expect(reordered.loose).not.toBe(late.loose);
    expect(JSON.stringify(reordered)).toBe(JSON.stringify(schema.parse(late)));
  });
});

describe('the validation processor on a body POST /v1/events parsed', () => {
  it('makes the event of the body’s own objects, stores the bench’s SDK events as received, and reads back the same document', () => {
    const bodies = sdkBodies(200);
    const items = bodies.map(ingestItem);
    const parsed = items.map((item) => item.data as Json);
    const events = validated(items);
    events.forEach((event, i) => {
      // Only the top level is new (the SDKs send user and tags before exception, zod's output after).
      expect(event.exception).toBe(parsed[i].exception);
      expect(event.breadcrumbs).toBe(parsed[i].breadcrumbs);
      const stored = encodeStoredEvent(event);
      expect(isStoredBody(stored)).toBe(true);
      const text = typeof stored === 'string' ? stored : stored.toString('utf8');
      expect(text.endsWith(bodies[i].toString('utf8'))).toBe(true);
      expect(storedEventJson(text)).toBe(eventDocumentJson(event));
    });
  });

  it('stores whole an event validation changed even when it is the parsed body itself', () => {
    const body = normalBody();
    const cases: Json[] = [
      { ...body, environment: 'e'.repeat(20_000) },
      { ...body, trace_id: 'ABCDEF0123456789ABCDEF0123456789' },
      { ...body, breadcrumbs: [{ timestamp: '2026-01-01T00:00:00Z', message: 'm' }] },
      { ...body, tags: { '': 'x', ok: 'y' } },
    ];
    for (const changed of cases) {
      const item = ingestItem(Buffer.from(JSON.stringify(changed)));
      const parsed = item.data;
      const [event] = validated([item]);
      expect(event).toBe(parsed);
      expect(receivedBodyOf(event)).toBeUndefined();
      const stored = encodeStoredEvent(event);
      expect(isStoredBody(stored)).toBe(false);
      expect(stored).toBe(eventDocumentJson(event));
    }
    // The same body unchanged is the parsed body too, and is stored as received.
    const bytes = Buffer.from(JSON.stringify(body));
    const item = ingestItem(bytes);
    const parsed = item.data;
    const [event] = validated([item]);
    expect(event).toBe(parsed);
    const stored = encodeStoredEvent(event) as Buffer;
    expect(isStoredBody(stored)).toBe(true);
    expect(stored.subarray(stored.length - bytes.length).equals(bytes)).toBe(true);
    expect(storedEventJson(stored.toString('utf8'))).toBe(eventDocumentJson(event));
  });

  it('gives the same events as validation that copies (an item without received bytes), notes and order included', () => {
    const bodies = [...sdkBodies(100), ...eventBodies(100).bodies];
    const owned = validated(bodies.map(ingestItem));
    const copied = validated(
      bodies.map((bytes) => ({ data: JSON.parse(bytes.toString('utf8')) as unknown, tenant: TENANT, receivedAt: Date.now(), size: bytes.length })),
    );
    owned.forEach((event, i) => {
      const { id, received_at: _a, ...rest } = event;
      const { id: otherId, received_at: _b, ...other } = copied[i];
      expect(JSON.stringify(rest)).toBe(JSON.stringify(other));
      expect(Object.keys(event)).toEqual(Object.keys(copied[i]));
      // The SDK events carry their ids; the other bench bodies are given new ones.
      if (i < 100) expect(id).toBe(otherId);
    });
  });
});
