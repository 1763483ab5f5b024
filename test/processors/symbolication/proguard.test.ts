// ProGuard/R8 remapping on a hand-written mapping excerpt in the format R8 writes (header
// comments, class lines, R8 `sourceFile` metadata, fields, line ranges, inline chains, methods
// inlined from other classes, an overload, a method without line information).
import { afterAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../../src/records/event.js';
import { WorkerPool } from '../../../processors/symbolication/pool.js';
import { mapLine, pickChain, ProguardMapping } from '../../../processors/symbolication/proguard.js';
import { InMemoryArtifacts, makeEvent, processorsShutDownAfterEach, SCOPE, symbolicate } from './helpers.js';

const MAPPING = `# compiler: R8
# compiler_version: 8.2.42
# min_api: 24
# pg_map_id: 5b46fdc
# common_typos_disable
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.example.shop.Cart -> com.example.shop.c:
    java.util.List items -> a
    1:2:double total():57:58 -> a
com.example.shop.CheckoutActivity -> com.example.shop.a:
# {"id":"sourceFile","fileName":"CheckoutActivity.kt"}
    com.example.shop.Cart cart -> a
    1:4:void <init>():12:15 -> <init>
    1:1:void onCreate(android.os.Bundle):20:20 -> onCreate
    2:3:void onCreate(android.os.Bundle):22:23 -> onCreate
    4:4:java.lang.String com.example.shop.PriceFormatter.format(double):31:31 -> onCreate
    4:4:double com.example.shop.Cart.total():58 -> onCreate
    4:4:void onCreate(android.os.Bundle):24 -> onCreate
    1:3:void submit():40:42 -> b
    4:4:void submit(int):50 -> b
    void reset() -> c
    void clearAll() -> d
    void clearAll(boolean) -> d
    void close() -> e
    void dispose() -> e
com.example.shop.CheckoutActivity$Companion -> com.example.shop.a$a:
    1:1:void start(android.content.Context):70:70 -> a
com.example.shop.InvalidCartException -> com.example.shop.d:
com.example.shop.PriceFormatter -> com.example.shop.b:
# {"id":"sourceFile","fileName":"PriceFormatter.kt"}
    1:1:java.lang.String format(double):31:31 -> a
`;

const UUID = '7a1c3a4e-5b6d-4e8f-9a0b-1c2d3e4f5a6b';

const pool = new WorkerPool(1);
afterAll(() => pool.close());

async function mapping(text = MAPPING): Promise<ProguardMapping> {
  const bytes = Buffer.from(text);
  return new ProguardMapping(await pool.run('proguard', bytes), bytes);
}

const frame = (module: string, fn: string, lineno?: number): StackFrame => ({
  module,
  function: fn,
  filename: 'SourceFile',
  ...(lineno !== undefined && { lineno }),
  in_app: true,
});

describe('ProguardMapping', () => {
  it('indexes the classes (the worker sorts them; lookups are binary searches over the file bytes)', async () => {
    const m = await mapping();
    expect(m.classCount).toBe(5);
    expect(m.originalClass('com.example.shop.a')).toBe('com.example.shop.CheckoutActivity');
    expect(m.originalClass('com.example.shop.a$a')).toBe('com.example.shop.CheckoutActivity$Companion');
    expect(m.originalClass('com.example.shop.d')).toBe('com.example.shop.InvalidCartException');
    expect(m.originalClass('com.example.shop.z')).toBeUndefined();
    expect(m.originalClass('com.example.shop')).toBeUndefined();
  });

  it('expands an inline chain into frames, outermost first, with each class’s file', async () => {
    const m = await mapping();
    expect(m.remapFrame(frame('com.example.shop.a', 'onCreate', 4))).toEqual([
      { module: 'com.example.shop.CheckoutActivity', function: 'onCreate', filename: 'CheckoutActivity.kt', lineno: 24, in_app: true },
      // No sourceFile for Cart: its simple name with the extension of the frame's class's file.
      { module: 'com.example.shop.Cart', function: 'total', filename: 'Cart.kt', lineno: 58, in_app: true },
      // PriceFormatter has its own sourceFile in the mapping.
      { module: 'com.example.shop.PriceFormatter', function: 'format', filename: 'PriceFormatter.kt', lineno: 31, in_app: true },
    ]);
  });

  it('maps lines through ranges and picks overloads by line', async () => {
    const m = await mapping();
    expect(m.remapFrame(frame('com.example.shop.a', 'onCreate', 3))).toEqual([
      { module: 'com.example.shop.CheckoutActivity', function: 'onCreate', filename: 'CheckoutActivity.kt', lineno: 23, in_app: true },
    ]);
    expect(m.remapFrame(frame('com.example.shop.a', 'b', 2))?.map((f) => [f.function, f.lineno])).toEqual([['submit', 41]]);
    expect(m.remapFrame(frame('com.example.shop.a', 'b', 4))?.map((f) => [f.function, f.lineno])).toEqual([['submit', 50]]);
    expect(m.remapFrame(frame('com.example.shop.b', 'a', 1))).toEqual([
      { module: 'com.example.shop.PriceFormatter', function: 'format', filename: 'PriceFormatter.kt', lineno: 31, in_app: true },
    ]);
    // An inner class without a sourceFile: its outer class's simple name, `.java`.
    expect(m.remapFrame(frame('com.example.shop.a$a', 'a', 1))?.[0]).toMatchObject({
      module: 'com.example.shop.CheckoutActivity$Companion',
      function: 'start',
      filename: 'CheckoutActivity.java',
      lineno: 70,
    });
  });

  it('methods without line information: one name (overloads included) resolves, two names do not', async () => {
    const m = await mapping();
    expect(m.remapFrame(frame('com.example.shop.a', 'c', 7))?.map((f) => [f.function, f.lineno])).toEqual([['reset', 7]]);
    expect(m.remapFrame(frame('com.example.shop.a', 'd'))?.map((f) => f.function)).toEqual(['clearAll']);
    // `e` is close() or dispose(): only the class is remapped.
    expect(m.remapFrame(frame('com.example.shop.a', 'e', 3))).toEqual([
      { module: 'com.example.shop.CheckoutActivity', function: 'e', filename: 'CheckoutActivity.kt', lineno: 3, in_app: true },
    ]);
    // A line outside every range of a known method: the class only.
    expect(m.remapFrame(frame('com.example.shop.a', 'b', 99))?.[0]).toMatchObject({ module: 'com.example.shop.CheckoutActivity', function: 'b' });
    // A class the mapping does not know (the platform's) is left to the caller.
    expect(m.remapFrame(frame('android.app.Activity', 'performCreate', 8000))).toBeUndefined();
  });

  it('line arithmetic follows the format', () => {
    expect(mapLine({ start: 1, end: 3, name: 'submit', origStart: 40, origEnd: 42, obfuscated: 'b' }, 3)).toBe(42);
    expect(mapLine({ start: 4, end: 4, name: 'onCreate', origStart: 24, obfuscated: 'onCreate' }, 4)).toBe(24);
    expect(mapLine({ start: 5, end: 9, name: 'x', obfuscated: 'x' }, 7)).toBe(7); // no original range: lines kept
    expect(mapLine({ start: 1, end: 5, name: 'x', origStart: 10, origEnd: 11, obfuscated: 'x' }, 4)).toBe(10); // past the original range
    expect(pickChain([], 3)).toBeUndefined();
  });
});

describe('Java events', () => {
  const processor = processorsShutDownAfterEach();

  function setup(content: string | null = MAPPING) {
    const artifacts = new InMemoryArtifacts();
    if (content !== null) artifacts.add(SCOPE, { name: 'mapping.txt', type: 'proguard', content, debug_id: UUID });
    const p = processor(artifacts);
    return { artifacts, p };
  }

  const javaEvent = (frames: StackFrame[], exception: { type: string; module?: string } = { type: 'com.example.shop.d' }) =>
    makeEvent(frames, {
      platform: 'java',
      exception: { ...exception, value: 'cart is empty', stacktrace: frames },
      debug_meta: { images: [{ type: 'proguard', uuid: UUID.toUpperCase() }] },
    });

  it('remaps frames (expanding inlined calls) and the exception type; raw_stacktrace keeps the frames as received', async () => {
    const frames = [
      { module: 'android.app.Activity', function: 'performCreate', filename: 'Activity.java', lineno: 8000, in_app: false },
      frame('com.example.shop.a', 'onCreate', 4),
    ];
    const raw = structuredClone(frames);
    const { p } = setup();
    const [event] = await symbolicate(p, javaEvent(frames));
    expect(event.exception.type).toBe('com.example.shop.InvalidCartException');
    expect(event.raw_stacktrace).toEqual(raw);
    expect((event.exception.stacktrace as StackFrame[]).map((f) => `${f.module}.${f.function}:${f.lineno} (${f.filename})`)).toEqual([
      'android.app.Activity.performCreate:8000 (Activity.java)',
      'com.example.shop.CheckoutActivity.onCreate:24 (CheckoutActivity.kt)',
      'com.example.shop.Cart.total:58 (Cart.kt)',
      'com.example.shop.PriceFormatter.format:31 (PriceFormatter.kt)',
    ]);
    expect(event.processing_errors).toEqual([]);
  });

  it('an exception given as module + type keeps that shape', async () => {
    const { p } = setup();
    const [event] = await symbolicate(p, javaEvent([frame('com.example.shop.b', 'a', 1)], { module: 'com.example.shop', type: 'd' }));
    expect(event.exception).toMatchObject({ module: 'com.example.shop', type: 'InvalidCartException' });
  });

  it('missing_proguard_mapping and malformed_proguard_mapping, at the first JVM frame, naming the UUID', async () => {
    const missing = setup(null);
    const [a] = await symbolicate(missing.p, javaEvent([frame('com.example.shop.a', 'onCreate', 4)]));
    expect(a.processing_errors).toEqual([
      { type: 'missing_proguard_mapping', path: 'exception.stacktrace[0]', message: `no ProGuard mapping for UUID ${UUID}` },
    ]);
    expect(a.exception.type).toBe('com.example.shop.d');

    const broken = setup('this is not a mapping file\nnor is this\n');
    const [b] = await symbolicate(broken.p, javaEvent([frame('com.example.shop.a', 'onCreate', 4)]));
    expect(b.processing_errors).toEqual([
      {
        type: 'malformed_proguard_mapping',
        path: 'exception.stacktrace[0]',
        message: expect.stringContaining('mapping.txt of UUID 7a1c3a4e-5b6d-4e8f-9a0b-1c2d3e4f5a6b could not be parsed: no class lines'),
      },
    ]);
  });

  it('needs a proguard image: JVM frames of events without one are left alone', async () => {
    const { p, artifacts } = setup();
    const frames = [frame('com.example.shop.a', 'onCreate', 4)];
    const event = makeEvent(frames, { platform: 'java' });
    expect(p.process([{ data: event, tenant: { orgId: 'o', projectId: SCOPE.projectId, dataset: 'live' }, receivedAt: 0, size: 1 }])).toBeUndefined();
    expect(event.exception.stacktrace).toEqual(frames);
    expect(artifacts.calls.byDebugId).toBe(0);
  });
});
