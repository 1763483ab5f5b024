// JavaScript symbolication against real esbuild maps and real V8 stack traces (see fixture.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../../src/records/event.js';
import { AnyMap, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { WorkerPool } from '../../../processors/symbolication/pool.js';
import { ParsedSourceMap } from '../../../processors/symbolication/source-map.js';
import { candidateNames, displayPath, isVendorSource, mapUrlNames, tildePath } from '../../../processors/symbolication/javascript.js';
import { APP_SOURCES, BUNDLE_URL, bundle, framesOf, load, markers, removeSources, sourceLine, writeSources, type Bundle, type Marker } from './fixture.js';
import { InMemoryArtifacts, makeEvent, processorsShutDownAfterEach, RELEASE, SCOPE, symbolicate, uploadedApp, withoutInApp } from './helpers.js';

const MARKERS = markers();
let dir: string;
let app: Bundle;
let edge: Bundle;
let exports: ReturnType<typeof load>;
const processor = processorsShutDownAfterEach();
const uploaded = (options: { minified?: boolean } = {}) => uploadedApp(app, options);

beforeAll(async () => {
  dir = writeSources();
  app = await bundle(dir);
  edge = await bundle(dir, { entry: 'src/edge.js', minify: false, format: 'esm', outName: 'edge.js' });
  exports = load(app.code);
});
afterAll(() => removeSources(dir));

function expectAt(frame: StackFrame, marker: string): void {
  const m = MARKERS.get(marker) as Marker;
  expect({ filename: frame.filename, lineno: frame.lineno, colno: frame.colno }).toEqual({ filename: m.file, lineno: m.line, colno: m.column + 1 });
}

/** The bundle's frames (the test runner's own frames below them are left out). */
function bundleFrames(frames: StackFrame[]): StackFrame[] {
  return frames.filter((f) => f.abs_path?.startsWith('https://') || f.abs_path?.startsWith('~/'));
}

describe('JavaScript frames through a real esbuild map', () => {
  it('maps every frame of a V8 stack trace to the marked original position, with the enclosing functions’ original names', async () => {
    const { frames } = framesOf(() => exports.run([{ price: 3 }]));
    const raw = structuredClone(frames);
    const [event] = await symbolicate(processor(uploaded()), makeEvent(frames, { exception: { type: 'RangeError', value: 'x', stacktrace: frames } }));
    const out = event.exception.stacktrace as StackFrame[];
    const bundled = bundleFrames(out);
    expect(bundled).toHaveLength(3);
    // Oldest call first: run -> checkout -> applyDiscount (all named so in the original source).
    expectAt(bundled[0], 'run-call');
    expectAt(bundled[1], 'checkout-call');
    expectAt(bundled[2], 'throw');
    expect(bundled.map((f) => f.function)).toEqual(['run', 'checkout', 'applyDiscount']);
    // …which are the names declared in the original source, not the minified ones.
    for (const name of ['run', 'checkout', 'applyDiscount']) expect(Object.values(APP_SOURCES).join('\n')).toContain(`function ${name}(`);
    expect(bundleFrames(frames).map((f) => f.function)).not.toContain('checkout');
    expect(bundled[2].abs_path).toBe('~/static/src/pricing.ts');
    expect(bundled[0].platform).toBe('node');
    // The received frames are kept as they were, and nothing went wrong.
    expect(event.raw_stacktrace).toEqual(raw);
    expect(event.processing_errors).toEqual([]);
    // The test runner's own frames (files on disk, nothing uploaded for them) are untouched.
    expect(out.filter((f) => !bundled.includes(f))).toEqual(raw.filter((f) => !f.abs_path?.startsWith('https://')));
  });

  it('symbolicates the frames of every exception of an exception.cause chain, keeping each one’s received frames', async () => {
    const { frames } = framesOf(() => exports.run([{ price: 3 }]));
    const raw = structuredClone(frames);
    const cause = { type: 'RangeError', value: 'inner', stacktrace: structuredClone(frames) };
    const [event] = await symbolicate(processor(uploaded()), makeEvent(frames, { exception: { type: 'Error', value: 'outer', stacktrace: frames, cause } }));
    const outer = bundleFrames(event.exception.stacktrace as StackFrame[]);
    const inner = bundleFrames(event.exception.cause?.stacktrace as StackFrame[]);
    expect(outer.map((f) => f.function)).toEqual(['run', 'checkout', 'applyDiscount']);
    expect(inner).toEqual(outer);
    expect(event.exception.cause?.raw_stacktrace).toEqual(raw);
    expect(event.raw_stacktrace).toEqual(raw);
  });

  it('recovers a method and its class (V8’s `c.render`) and an arrow function assigned to a const', async () => {
    const p = processor(uploaded());
    const render = framesOf(() => exports.renderWidget(undefined));
    const submit = framesOf(() => exports.onSubmit({ items: [{ price: 1 }] }));
    expect(bundleFrames(render.frames).map((f) => f.function)).toEqual(['Object.s', 'c.render']); // minified, as V8 reports them
    const [a, b] = await symbolicate(p, makeEvent(render.frames), makeEvent(submit.frames));
    const rendered = bundleFrames(a.exception.stacktrace as StackFrame[]);
    expect(rendered.map((f) => f.function)).toEqual(['renderWidget', 'Widget.render']);
    expectAt(rendered[0], 'render-call');
    expectAt(rendered[1], 'render-throw');
    const submitted = bundleFrames(b.exception.stacktrace as StackFrame[]);
    expect(submitted[0].function).toBe('onSubmit');
    expectAt(submitted[0], 'onsubmit-call');
    expect(submitted.at(-1)?.function).toBe('applyDiscount');
  });

  it('a named function expression esbuild left anonymous gets its original name; a frame through node_modules maps into it', async () => {
    const { frames } = framesOf(() => exports.runThroughLibrary([{ price: 3 }]));
    const [event] = await symbolicate(processor(uploaded()), makeEvent(frames));
    const bundled = bundleFrames(event.exception.stacktrace as StackFrame[]);
    // runThroughLibrary -> invoke (tiny-lib) -> the callback `function relay(list)` (anonymous in
    // the bundle: esbuild drops the name) -> checkout -> applyDiscount
    expect(bundled.map((f) => f.function)).toEqual(['runThroughLibrary', 'invoke', 'relay', 'checkout', 'applyDiscount']);
    expectAt(bundled[1], 'vendor-call');
    expectAt(bundled[2], 'relay-call');
  });

  it('keeps the minified names when the minified source was not uploaded (positions are still mapped)', async () => {
    const { frames } = framesOf(() => exports.run([{ price: 3 }]));
    const minifiedNames = bundleFrames(frames).map((f) => f.function);
    const [event] = await symbolicate(processor(uploaded({ minified: false })), makeEvent(frames));
    const bundled = bundleFrames(event.exception.stacktrace as StackFrame[]);
    expect(bundled.map((f) => f.function)).toEqual(minifiedNames);
    expectAt(bundled[2], 'throw');
    expect(event.processing_errors).toEqual([]);
  });

  it('fills context lines from sourcesContent: 5 around the line by default, as configured', async () => {
    const { frames } = framesOf(() => exports.run([{ price: 3 }]));
    const m = MARKERS.get('throw') as Marker;
    const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => sourceLine(m.file, from + i));
    const [event] = await symbolicate(processor(uploaded()), makeEvent(structuredClone(frames)));
    const crash = (event.exception.stacktrace as StackFrame[]).at(-1) as StackFrame;
    expect(crash.context_line).toBe(sourceLine(m.file, m.line));
    expect(crash.pre_context).toEqual(lines(m.line - 5, m.line - 1));
    expect(crash.post_context).toEqual(lines(m.line + 1, m.line + 4)); // the file has 4 more lines (the last empty)
    const [two] = await symbolicate(processor(uploaded(), { context_lines: 2 }), makeEvent(structuredClone(frames)));
    const crash2 = (two.exception.stacktrace as StackFrame[]).at(-1) as StackFrame;
    expect(crash2.pre_context).toEqual(lines(m.line - 2, m.line - 1));
    expect(crash2.post_context).toEqual(lines(m.line + 1, m.line + 2));
    const [none] = await symbolicate(processor(uploaded(), { context_lines: 0 }), makeEvent(structuredClone(frames)));
    const crash0 = (none.exception.stacktrace as StackFrame[]).at(-1) as StackFrame;
    expect(crash0).toMatchObject({ context_line: sourceLine(m.file, m.line), pre_context: [], post_context: [] });
  });

  it('maps column 1 and the last column of a generated line exactly (1-based frames, 0-based maps)', async () => {
    const artifacts = new InMemoryArtifacts();
    artifacts.add(SCOPE, { name: '~/static/js/edge.js.map', type: 'source_map', content: edge.map });
    const generated = edge.code.split('\n');
    const lineno = generated.findIndex((l) => l.startsWith('globalThis.__edge')) + 1;
    const last = generated[lineno - 1].length;
    const url = 'https://cdn.example.com/static/js/edge.js';
    const [event] = await symbolicate(
      processor(artifacts),
      makeEvent([
        { abs_path: url, filename: url, lineno, colno: 1 },
        { abs_path: url, filename: url, lineno, colno: last },
      ]),
    );
    const [first, end] = event.exception.stacktrace as StackFrame[];
    expectAt(first, 'edge-first');
    // The last column is the `;`, which has no segment: the last segment before it is `edgeValue`.
    const original = sourceLine('src/edge.js', 2);
    expect(end).toMatchObject({ filename: 'src/edge.js', lineno: 2, colno: original.lastIndexOf('edgeValue') + 1 });
  });

  it('resolves through an index map (sections), each section at its offset', async () => {
    const appLines = app.code.split('\n').length - (app.code.endsWith('\n') ? 1 : 0);
    const edgeLine = edge.code.split('\n').findIndex((l) => l.startsWith('globalThis.__edge')) + 1;
    const index = {
      version: 3,
      file: 'combined.js',
      sections: [
        { offset: { line: 0, column: 0 }, map: app.mapJson },
        { offset: { line: appLines, column: 0 }, map: edge.mapJson },
      ],
    };
    const artifacts = new InMemoryArtifacts();
    artifacts.add(SCOPE, { name: '~/static/js/app.min.js.map', type: 'source_map', content: JSON.stringify(index) });
    const { frames } = framesOf(() => exports.run([{ price: 3 }]));
    const [event] = await symbolicate(
      processor(artifacts),
      makeEvent([...frames, { abs_path: BUNDLE_URL, filename: BUNDLE_URL, lineno: appLines + edgeLine, colno: 1 }]),
    );
    const out = bundleFrames(event.exception.stacktrace as StackFrame[]);
    expectAt(out[2], 'throw');
    expectAt(out[3], 'edge-first');
    expect(event.processing_errors).toEqual([]);
  });

  it('marks frames from node_modules in_app: false unless the client set in_app', async () => {
    const { frames } = framesOf(() => exports.runThroughLibrary([{ price: 3 }]));
    const [unset] = await symbolicate(processor(uploaded()), makeEvent(withoutInApp(frames)));
    const out = bundleFrames(unset.exception.stacktrace as StackFrame[]);
    expect(out[1].filename).toBe('node_modules/tiny-lib/index.js');
    expect(out[1].in_app).toBe(false);
    expect(out.filter((f) => f !== out[1]).every((f) => f.in_app === undefined)).toBe(true);
    const [set] = await symbolicate(processor(uploaded()), makeEvent(frames)); // the V8 parser set in_app: true
    expect(bundleFrames(set.exception.stacktrace as StackFrame[])[1].in_app).toBe(true);
  });
});

describe('finding the map', () => {
  const throwFrame = () => bundleFrames(framesOf(() => exports.run([{ price: 3 }])).frames);

  it('by debug id: the frame’s debug_id, or the debug_meta image whose code_file is the frame’s file', async () => {
    const debugId = 'C0FFEE00-1234-4abc-8def-0123456789AB';
    const withId = JSON.stringify({ ...app.mapJson, debugId: debugId.toLowerCase() });
    const artifacts = new InMemoryArtifacts();
    // Uploaded to another release under an unrelated name: a debug id names one build wherever it is.
    artifacts.add({ ...SCOPE, release: 'web@0.9.0' }, { name: 'dist/whatever.js.map', type: 'source_map', content: withId });
    const p = processor(artifacts);
    const viaFrame = throwFrame().map((f) => ({ ...f, debug_id: debugId }));
    const viaImage = throwFrame();
    const [a, b] = await symbolicate(
      p,
      makeEvent(viaFrame),
      makeEvent(viaImage, { debug_meta: { images: [{ type: 'sourcemap', code_file: BUNDLE_URL, debug_id: debugId.replace(/-/g, '') }] } }),
    );
    expectAt((a.exception.stacktrace as StackFrame[])[2], 'throw');
    expectAt((b.exception.stacktrace as StackFrame[])[2], 'throw');
    expect(artifacts.calls.byNames).toBe(0);
  });

  it('by URL: as given, without the query, as ~/path, by file name; a map uploaded as <name>.map', async () => {
    const frames = throwFrame().map((f) => ({ ...f, abs_path: `${BUNDLE_URL}?v=3#x`, filename: `${BUNDLE_URL}?v=3#x` }));
    expect(candidateNames(`${BUNDLE_URL}?v=3`)).toEqual([
      `${BUNDLE_URL}?v=3`,
      BUNDLE_URL,
      '~/static/js/app.min.js?v=3',
      '~/static/js/app.min.js',
      'app.min.js',
    ]);
    for (const name of [`${BUNDLE_URL}.map`, '~/static/js/app.min.js.map', 'app.min.js.map']) {
      const artifacts = new InMemoryArtifacts();
      artifacts.add(SCOPE, { name, type: 'source_map', content: app.map });
      const [event] = await symbolicate(processor(artifacts), makeEvent(structuredClone(frames)));
      expectAt((event.exception.stacktrace as StackFrame[])[2], 'throw');
      expect(event.processing_errors).toEqual([]);
    }
  });

  it('server paths: an absolute file path and app:/// also try every ~/ suffix, longest first; a web URL does not', () => {
    expect(candidateNames('/srv/shop/dist/server.js')).toEqual([
      '/srv/shop/dist/server.js',
      '~/srv/shop/dist/server.js',
      '~/shop/dist/server.js',
      '~/dist/server.js',
      '~/server.js',
      'server.js',
    ]);
    expect(candidateNames('app:///dist/server.js')).toEqual(['app:///dist/server.js', '~/dist/server.js', '~/server.js', 'server.js']);
    expect(candidateNames('file:///srv/server.js')).toEqual(['file:///srv/server.js', '~/srv/server.js', '~/server.js', 'server.js']);
    expect(candidateNames(BUNDLE_URL)).not.toContain('~/app.min.js');
    // A deep path tries a bounded number of suffixes.
    const deep = `/${Array.from({ length: 200 }, (_, i) => `d${i}`).join('/')}/server.js`;
    expect(candidateNames(deep).filter((name) => name.startsWith('~/')).length).toBeLessThanOrEqual(17);
  });

  it('follows a minified source’s sourceMappingURL (relative to its name), else the <name>.map convention', async () => {
    const frames = throwFrame();
    const relocated = app.code.replace(/\/\/# sourceMappingURL=\S+/, '//# sourceMappingURL=../maps/app.js.map');
    const a = new InMemoryArtifacts();
    a.add(SCOPE, { name: BUNDLE_URL, type: 'minified_source', content: relocated });
    a.add(SCOPE, { name: 'https://cdn.example.com/static/maps/app.js.map', type: 'source_map', content: app.map });
    a.add(SCOPE, { name: `${BUNDLE_URL}.map`, type: 'source_map', content: '{"version":3,"sources":[],"names":[],"mappings":""}' }); // not the one named
    const [viaUrl] = await symbolicate(processor(a), makeEvent(structuredClone(frames)));
    expectAt((viaUrl.exception.stacktrace as StackFrame[])[2], 'throw');
    expect((viaUrl.exception.stacktrace as StackFrame[])[2].function).toBe('applyDiscount');

    const b = new InMemoryArtifacts();
    b.add(SCOPE, { name: '~/static/js/app.min.js', type: 'minified_source', content: app.code.replace(/\/\/# sourceMappingURL=\S+/, '') });
    b.add(SCOPE, { name: '~/static/js/app.min.js.map', type: 'source_map', content: app.map });
    const [convention] = await symbolicate(processor(b), makeEvent(structuredClone(frames)));
    expectAt((convention.exception.stacktrace as StackFrame[])[2], 'throw');

    expect(mapUrlNames('~/static/js/app.min.js', '../maps/app.js.map')).toEqual(['~/static/maps/app.js.map']);
    expect(mapUrlNames(BUNDLE_URL, 'app.min.js.map?x=1')).toEqual([`${BUNDLE_URL}.map?x=1`, '~/static/js/app.min.js.map?x=1']);
    expect(mapUrlNames('app.min.js', 'https://maps.example.com/a.map')).toEqual(['https://maps.example.com/a.map', '~/a.map']);
  });

  it('reads an inline data: URL map', async () => {
    const inline = app.code.replace(
      /\/\/# sourceMappingURL=\S+/,
      `//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(app.map).toString('base64')}`,
    );
    const artifacts = new InMemoryArtifacts();
    artifacts.add(SCOPE, { name: '~/static/js/app.min.js', type: 'minified_source', content: inline });
    const [event] = await symbolicate(processor(artifacts), makeEvent(throwFrame()));
    expectAt((event.exception.stacktrace as StackFrame[])[2], 'throw');
    expect((event.exception.stacktrace as StackFrame[])[2].function).toBe('applyDiscount');
  });

  it('looks only in the event’s release and dist', async () => {
    const artifacts = new InMemoryArtifacts();
    artifacts.add({ ...SCOPE, dist: 'android' }, { name: '~/static/js/app.min.js.map', type: 'source_map', content: app.map });
    const p = processor(artifacts);
    const [ios, android, none] = await symbolicate(
      p,
      makeEvent(throwFrame(), { dist: 'ios' }),
      makeEvent(throwFrame(), { dist: 'android' }),
      makeEvent(throwFrame()),
    );
    expect(ios.processing_errors.map((e) => e.type)).toEqual(['missing_source_map']);
    expectAt((android.exception.stacktrace as StackFrame[])[2], 'throw');
    expect(none.processing_errors.map((e) => e.type)).toEqual(['missing_source_map']);
    expect(RELEASE).toBe(SCOPE.release);
  });

  it('helpers: ~/ paths, display paths and vendor sources', () => {
    expect(tildePath('https://a.example/x/y.js?q')).toBe('~/x/y.js?q');
    expect(tildePath('file:///app/dist/server.js')).toBe('~/app/dist/server.js');
    expect(tildePath('/app/dist/server.js')).toBe('~/app/dist/server.js');
    expect(tildePath('app.js')).toBeUndefined();
    expect(tildePath('C:\\app\\x.js')).toBeUndefined();
    expect(displayPath('webpack://shop/./src/cart.js')).toBe('src/cart.js');
    expect(displayPath('../../src/cart.ts')).toBe('src/cart.ts');
    expect(displayPath('/home/ci/app/src/cart.ts')).toBe('/home/ci/app/src/cart.ts');
    for (const vendor of [
      '../node_modules/react/index.js',
      'webpack://shop/node_modules/x/y.js',
      'webpack:///webpack/bootstrap',
      'webpack://shop/(webpack)/buildin/global.js',
      'vite/preload-helper.js',
      '/@fs/home/u/app/node_modules/.vite/deps/vue.js',
    ])
      expect(isVendorSource(vendor), vendor).toBe(true);
    for (const own of ['../src/cart.ts', 'webpack://shop/./src/webpack-config-ui.js', 'src/vite.ts']) expect(isVendorSource(own), own).toBe(false);
  });
});

describe('processing errors', () => {
  const frames = () => bundleFrames(framesOf(() => exports.run([{ price: 3 }])).frames);

  it('missing_source_map: once per file, at its first frame, naming what was tried', async () => {
    const [event] = await symbolicate(processor(new InMemoryArtifacts()), makeEvent(frames()));
    expect(event.processing_errors).toHaveLength(1);
    const [error] = event.processing_errors;
    expect(error).toMatchObject({ type: 'missing_source_map', path: 'exception.stacktrace[0]' });
    expect(error.message).toContain(BUNDLE_URL);
    expect(error.message).toContain('~/static/js/app.min.js');
    expect(error.message).toMatch(/\(3 frames\)$/);
    expect(event.exception.stacktrace).toEqual(frames());
    expect(event.raw_stacktrace).toBeUndefined(); // nothing changed: one copy of the frames
  });

  it('missing_source_map names the debug id it looked for', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    const [event] = await symbolicate(processor(new InMemoryArtifacts()), makeEvent(frames().map((f) => ({ ...f, debug_id: id }))));
    expect(event.processing_errors).toEqual([expect.objectContaining({ type: 'missing_source_map', message: expect.stringContaining(`debug id ${id}`) })]);
  });

  it('malformed_source_map, and the failure is cached: the next event does not parse it again', async () => {
    const artifacts = new InMemoryArtifacts();
    artifacts.add(SCOPE, { name: '~/static/js/app.min.js.map', type: 'source_map', content: '{"version":3,"sources":["a.js"],"mappings":' });
    const p = processor(artifacts);
    const [a] = await symbolicate(p, makeEvent(frames()));
    const [b] = await symbolicate(p, makeEvent(frames()));
    for (const event of [a, b]) {
      expect(event.processing_errors).toEqual([
        {
          type: 'malformed_source_map',
          path: 'exception.stacktrace[0]',
          message: expect.stringMatching(/~\/static\/js\/app\.min\.js\.map could not be parsed: not JSON.*\(3 frames\)$/),
        },
      ]);
    }
    expect(artifacts.reads.get('~/static/js/app.min.js.map')).toBe(1);
  });

  it('a failed parse is tried again after failed_ttl_ms', async () => {
    const artifacts = new InMemoryArtifacts();
    artifacts.add(SCOPE, { name: '~/static/js/app.min.js.map', type: 'source_map', content: '{"version":2}' });
    const p = processor(artifacts, { failed_ttl_ms: 30, lookup_ttl_ms: 0 });
    await symbolicate(p, makeEvent(frames()));
    await new Promise((r) => setTimeout(r, 60));
    const [later] = await symbolicate(p, makeEvent(frames()));
    expect(later.processing_errors[0].message).toContain('version is 2, not 3');
    expect(artifacts.reads.get('~/static/js/app.min.js.map')).toBe(2);
  });

  it('frame_out_of_range for a position the map does not cover; the other frames still resolve', async () => {
    const f = frames();
    f[0] = { ...f[0], lineno: 40 };
    const [event] = await symbolicate(processor(uploaded()), makeEvent(f));
    expect(event.processing_errors).toEqual([
      {
        type: 'frame_out_of_range',
        path: 'exception.stacktrace[0]',
        message: `${BUNDLE_URL}:40:${f[0].colno} is outside what the source map ~/static/js/app.min.js.map covers`,
      },
    ]);
    expect((event.exception.stacktrace as StackFrame[])[0]).toEqual(f[0]);
    expectAt((event.exception.stacktrace as StackFrame[])[2], 'throw');
  });

  it('a failing artifact lookup is a processing error, not a failed event', async () => {
    const artifacts = uploaded();
    artifacts.failure = new Error('catalog unavailable');
    const [event] = await symbolicate(processor(artifacts), makeEvent(frames()));
    expect(event.processing_errors).toEqual([expect.objectContaining({ type: 'missing_source_map', message: expect.stringContaining('catalog unavailable') })]);
  });

  it('files nothing promised a map for (server code on disk, node_modules) stay quiet', async () => {
    const [event] = await symbolicate(
      processor(new InMemoryArtifacts()),
      makeEvent([
        { filename: '/srv/app/node_modules/express/lib/router.js', abs_path: '/srv/app/node_modules/express/lib/router.js', lineno: 10, colno: 5 },
        { filename: '/srv/app/src/server.js', abs_path: '/srv/app/src/server.js', lineno: 3, colno: 9, function: 'handle' },
      ]),
    );
    expect(event.processing_errors).toEqual([]);
  });
});

describe('ParsedSourceMap', () => {
  it('answers exactly what trace-mapping’s originalPositionFor answers, at and between every segment (plain and index maps)', async () => {
    const pool = new WorkerPool(1);
    try {
      const appLines = app.code.split('\n').length - 1;
      const index = {
        version: 3,
        sections: [
          { offset: { line: 0, column: 0 }, map: app.mapJson },
          { offset: { line: appLines, column: 0 }, map: edge.mapJson },
        ],
      };
      for (const [json, reference] of [
        [app.map, new TraceMap(app.map)],
        [edge.map, new TraceMap(edge.map)],
        [JSON.stringify(index), new AnyMap(index as never)],
      ] as const) {
        const parsed = new ParsedSourceMap(await pool.run('sourcemap', Buffer.from(json)));
        let checked = 0;
        for (let line0 = 0; line0 < parsed.lineCount + 1; line0++) {
          const [first, end] = parsed.lineSegments(line0);
          const columns = new Set([0, 1]);
          for (let s = first; s < end; s++) for (const d of [-1, 0, 1]) columns.add(Math.max(0, parsed.generatedColumn(s) + d));
          for (const column0 of columns) {
            const ours = parsed.originalPosition(line0 + 1, column0 + 1);
            const theirs = originalPositionFor(reference, { line: line0 + 1, column: column0 });
            expect(ours ? { source: ours.source, line: ours.line, column: ours.column, name: ours.name } : null).toEqual(
              theirs.source === null ? null : theirs,
            );
            checked++;
          }
        }
        expect(checked).toBeGreaterThan(parsed.segmentCount);
      }
    } finally {
      await pool.close();
    }
  });
});
