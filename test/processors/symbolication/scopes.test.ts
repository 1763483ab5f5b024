// Scope-based function names, in process: what the worker's scope extraction names each function
// of a generated file (scopes-worker.ts), and the processor's fallbacks — a minified file over
// `scope_max_bytes`, or one acorn cannot parse, keeps the declaration scan — against the real
// esbuild bundle of fixture.ts.
import * as acorn from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../../src/records/event.js';
import { LINE_FACTOR, scopeExtraction, type ScopeIndex } from '../../../processors/symbolication/scopes-worker.js';
import { bundle, framesOf, load, removeSources, writeSources, type Bundle } from './fixture.js';
import { makeEvent, processorsShutDownAfterEach, SCOPE, symbolicate, InMemoryArtifacts } from './helpers.js';

const extract = scopeExtraction(acorn);

/** Every scope as `line:column name` (the name's parts joined as generated; `-`: anonymous). */
function named(index: ScopeIndex): string[] {
  const out: string[] = [];
  for (let i = 0; i < index.starts.length; i++) {
    let name = '';
    for (let c = index.nameStarts[i]; c < index.nameEnds[i]; c++) name += index.strings[index.components[3 * c + 2]];
    const line = Math.floor(index.starts[i] / LINE_FACTOR);
    out.push(`${line}:${index.starts[i] - line * LINE_FACTOR} ${name || '-'}`);
  }
  return out;
}

describe('scope extraction (acorn, in the worker)', () => {
  it('names every function the way Sentry does', () => {
    const source = [
      'function fnDecl() { return function fnExpr() {}; }',
      'const arrow = () => { [1].map((x) => x); };',
      'a.b.c = function () {};',
      'exports.retry = { attempts() {} };',
      'module.exports.helper = () => 1;',
      "const obj = { m() {}, p: () => {}, 'q-r': function () {} };",
      'class C { constructor() {} m() {} static s() {} get g() { return 1; } h = () => {}; #priv() {} static { } }',
      'var _Order = class _Order { total() {} };',
      'const K = class { run() {} };',
      'function outer(cb = () => {}) {}',
    ].join('\n');
    expect(named(extract(Buffer.from(source)))).toEqual([
      '0:0 fnDecl',
      '0:27 fnExpr',
      '1:14 arrow',
      '1:30 -',
      '2:8 a.b.c',
      '3:26 retry.attempts',
      '4:24 helper',
      '5:15 obj.m',
      '5:25 obj.p',
      '5:42 obj.q-r',
      '6:21 new C',
      '6:28 C.m',
      '6:42 C.s',
      '6:53 C.g',
      '6:74 C.h',
      '6:89 C.#priv',
      '6:95 C',
      '7:33 _Order.total',
      '8:21 K.run',
      '9:0 outer',
      '9:20 cb',
    ]);
  });

  it('records each scope’s enclosing scope', () => {
    const index = extract(Buffer.from('function a() { function b() { return () => 1; } }\nfunction c() {}'));
    expect([...index.parents]).toEqual([-1, 0, 1, -1]);
  });

  it('refuses what is not JavaScript (the processor then keeps the declaration scan)', () => {
    expect(() => extract(Buffer.from('function ( {'))).toThrow();
  });
});

describe('the processor’s fallbacks', () => {
  let dir: string;
  let app: Bundle;
  let frames: StackFrame[];
  const processor = processorsShutDownAfterEach();

  beforeAll(async () => {
    dir = writeSources();
    app = await bundle(dir);
    frames = framesOf(() => load(app.code).run([{ price: 3 }])).frames;
  });
  afterAll(() => removeSources(dir));

  const names = async (code: string, config: { scope_max_bytes?: number } = {}) => {
    const artifacts = new InMemoryArtifacts();
    artifacts.add(SCOPE, { name: '~/static/js/app.min.js', type: 'minified_source', content: code });
    artifacts.add(SCOPE, { name: '~/static/js/app.min.js.map', type: 'source_map', content: app.map });
    const [event] = await symbolicate(processor(artifacts, config), makeEvent(structuredClone(frames)));
    return (event.exception.stacktrace as StackFrame[]).filter((f) => f.abs_path?.startsWith('~/')).map((f) => f.function);
  };

  it('scopes by default; the declaration scan (runtime shape, `Object.run`) past scope_max_bytes or when the file does not parse', async () => {
    expect(await names(app.code)).toEqual(['run', 'checkout', 'applyDiscount']);
    expect(await names(app.code, { scope_max_bytes: 0 })).toEqual(['Object.run', 'checkout', 'applyDiscount']);
    // The same bytes at the same positions, made unparsable after the code.
    expect(await names(`${app.code}\n)(`)).toEqual(['Object.run', 'checkout', 'applyDiscount']);
  });
});
