// The processor as a whole: in a pipeline (validation -> symbolication -> grouping) over an
// in-memory artifact store, its contracts, the fast path, concurrency, the worker pool and metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfigText } from '../../../src/config/load.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import type { Consumer, ExporterFactory, ProcessorFactory, ReceiverFactory } from '../../../src/engine/component.js';
import { PipelineGraph } from '../../../src/engine/graph.js';
import type { Host } from '../../../src/engine/host.js';
import type { Item } from '../../../src/engine/item.js';
import { Registry } from '../../../src/engine/registry.js';
import type { ErrorEvent, StackFrame } from '../../../src/records/event.js';
import { Metrics } from '../../../src/telemetry/metrics.js';
import { groupingFactory } from '../../../processors/grouping/factory.js';
import { symbolicationFactory } from '../../../processors/symbolication/factory.js';
import { WorkerPool } from '../../../processors/symbolication/pool.js';
import { needsSymbolication, SymbolicationProcessor } from '../../../processors/symbolication/processor.js';
import type { SymbolicationConfig } from '../../../processors/symbolication/config.js';
import { duckdbExtensionFactory } from '../../../extensions/duckdb/index.js';
import { issuesExtensionFactory } from '../../../extensions/issues/index.js';
import { catalogExtensionFactory } from '../../../extensions/catalog/index.js';
import { testHost, type TestHost } from '../../support/test-host.js';
import { validationFactory } from '../../../processors/validation/factory.js';
import { BUNDLE_URL, bundle, framesOf, load, markers, removeSources, writeSources, type Bundle } from './fixture.js';
import { InMemoryArtifacts, itemOf, makeEvent, processorsShutDownAfterEach, SCOPE, TENANT, uploadedApp } from './helpers.js';

let dir: string;
let app: Bundle;
let appExports: ReturnType<typeof load>;
beforeAll(async () => {
  dir = writeSources();
  app = await bundle(dir);
  appExports = load(app.code);
});
afterAll(() => removeSources(dir));

const processor = processorsShutDownAfterEach();
const uploaded = () => uploadedApp(app);

const appFrames = () => framesOf(() => appExports.run([{ price: 3 }])).frames.filter((f) => f.abs_path === BUNDLE_URL);

describe('in a pipeline', () => {
  // Grouping's issues extension is real (a temporary data directory); symbolication's artifacts
  // are the in-memory store, given by a factory that is the stock one but for where artifacts come from.
  let issuesHost: TestHost;
  beforeAll(async () => {
    issuesHost = await testHost({ extensions: ['issues'] });
  });
  afterAll(async () => {
    await issuesHost?.close();
  });

  function pipeline(yaml: string, artifacts: InMemoryArtifacts) {
    const exported: Item[] = [];
    const consumers: Partial<Record<'events', Consumer>> = {};
    const receiver: ReceiverFactory<unknown> = {
      kind: 'receiver',
      type: 'test_in',
      signals: ['events'],
      stability: { events: 'development' },
      description: 'test receiver',
      configSchema: z.object({}).strict(),
      create: ({ consumers: c }) => (Object.assign(consumers, c), {}),
    };
    const exporter: ExporterFactory<unknown> = {
      kind: 'exporter',
      type: 'memory',
      signals: ['events'],
      stability: { events: 'development' },
      description: 'keeps events',
      configSchema: z.object({}).strict(),
      create: () => ({ export: async (_signal, items) => void exported.push(...items) }),
    };
    const inMemorySymbolication: ProcessorFactory<SymbolicationConfig> = {
      ...symbolicationFactory,
      extensions: [],
      create: (settings) =>
        new SymbolicationProcessor(settings.config, {
          id: settings.id.text,
          artifacts,
          registry: settings.host.metrics.registry,
          logger: settings.host.logger,
        }),
    };
    const registry = new Registry(
      [receiver, validationFactory, inMemorySymbolication, groupingFactory, exporter],
      [duckdbExtensionFactory, catalogExtensionFactory, issuesExtensionFactory],
    );
    const { config, errors } = resolveConfig(parseConfigText(yaml, 't.yaml'), registry, { FAULTLINE_DATA_DIR: '/tmp/unused' });
    const metrics = new Metrics();
    const host: Host = { ...issuesHost.host, metrics };
    const graph = config ? PipelineGraph.build(config, host) : undefined;
    return { graph, errors, consumers, exported, metrics };
  }

  const YAML = `
receivers: { test_in: {} }
processors: { validation: {}, symbolication: { context_lines: 3 }, grouping: {} }
exporters: { memory: {} }
service:
  pipelines:
    events: { receivers: [test_in], processors: [validation, symbolication, grouping], exporters: [memory] }
`;

  it('symbolicates ingested events before grouping, so the culprit and the issue come from the original source', async () => {
    const { graph, consumers, exported, metrics, errors } = pipeline(YAML, uploaded());
    if (!graph) throw new Error(`config refused: ${JSON.stringify(errors)}`);
    await graph.start();
    try {
      const frames = framesOf(() => appExports.run([{ price: 3 }])).frames.map(({ abs_path, filename, lineno, colno, function: fn }) => ({
        abs_path,
        filename,
        lineno,
        colno,
        function: fn,
      }));
      const body = {
        timestamp: new Date().toISOString(),
        environment: 'production',
        release: SCOPE.release,
        platform: 'javascript',
        exception: { type: 'RangeError', value: 'discount factor 2 is too large for 3', stacktrace: frames },
      };
      const items: Item[] = [{ data: body, tenant: TENANT, receivedAt: Date.now(), size: 2048 }];
      await consumers.events?.consume(items);
      expect(items[0].outcome).toBeUndefined();
      const event = exported[0].data as ErrorEvent;
      const crash = (event.exception.stacktrace as StackFrame[]).at(-1) as StackFrame;
      const m = markers().get('throw');
      expect(crash).toMatchObject({ function: 'applyDiscount', filename: 'src/pricing.ts', lineno: m?.line, colno: (m?.column ?? 0) + 1 });
      expect(crash.pre_context).toHaveLength(3);
      expect(event.culprit).toBe('applyDiscount (src/pricing.ts)');
      expect(event.root_cause?.summary).toContain('in applyDiscount (src/pricing.ts:9:');
      expect((event.raw_stacktrace as StackFrame[]).at(-1)).toMatchObject({ abs_path: BUNDLE_URL, lineno: 1 });
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/faultline_symbolication_frames_total\{processor="symbolication",platform="javascript",result="symbolicated"\} 3/);
      expect(text).toMatch(/faultline_symbolication_parse_seconds_count\{processor="symbolication",kind="sourcemap",result="ok"\} 1/);
      expect(text).toMatch(/faultline_symbolication_cache_bytes\{processor="symbolication"\} [1-9]\d*/);
    } finally {
      await graph.shutdown();
    }
  });

  it('must come after validation and before grouping', () => {
    const early = pipeline(YAML.replace('[validation, symbolication, grouping]', '[symbolication, validation, grouping]'), new InMemoryArtifacts());
    expect(early.errors.map((e) => e.message).join('\n')).toMatch(/validated/);
    const late = pipeline(YAML.replace('[validation, symbolication, grouping]', '[validation, grouping, symbolication]'), new InMemoryArtifacts());
    expect(late.errors.map((e) => e.message).join('\n')).toMatch(/must come before the grouping processor/);
  });
});

describe('the fast path', () => {
  it('events with nothing to symbolicate are passed over synchronously, with no lookup', () => {
    const artifacts = new InMemoryArtifacts();
    const p = processor(artifacts);
    const nothing: StackFrame[][] = [
      [],
      [{ filename: 'app/models.py', module: 'app.models', function: 'save', lineno: 42, platform: 'python' }],
      [{ filename: 'bundle.js', function: 'x', lineno: 1 }], // no column
      [
        { function: 'Array.map', filename: '<anonymous>', lineno: 1, colno: 1 },
        { filename: 'node:internal/process/task_queues', lineno: 95, colno: 5 },
      ],
      [{ module: 'com.example.A', function: 'run', lineno: 3 }], // JVM, but no ProGuard mapping named
      [{ instruction_addr: '0x1000' }], // native, but no image
    ];
    const events = nothing.map((frames) => makeEvent(frames));
    for (const event of events) expect(needsSymbolication(event)).toBe(false);
    expect(p.process(events.map((e) => itemOf(e)))).toBeUndefined();
    expect(artifacts.calls).toEqual({ byDebugId: 0, byNames: 0, read: 0 });
    expect(events.every((e) => e.raw_stacktrace === undefined && e.processing_errors.length === 0)).toBe(true);
    expect(needsSymbolication(makeEvent(appFrames()))).toBe(true);
  });
});

describe('concurrency and caching', () => {
  it('events needing the same cold map share one read and one parse', async () => {
    const artifacts = uploaded();
    let open = () => {};
    artifacts.gate = new Promise<void>((resolve) => (open = resolve));
    const p = processor(artifacts);
    const first = p.process([itemOf(makeEvent(appFrames()))]);
    const second = p.process([itemOf(makeEvent(appFrames()))]);
    await new Promise((r) => setTimeout(r, 20));
    open();
    await Promise.all([first, second]);
    expect(artifacts.reads.get('~/static/js/app.min.js.map')).toBe(1);
    expect(p.services.cache.stats).toMatchObject({ misses: 2, shared: 2 }); // the map and the minified source, each built once; the second event joined both
    // Later events find it parsed (and the lookups remembered).
    const queries = artifacts.calls.byNames;
    const [later] = [makeEvent(appFrames())];
    await p.process([itemOf(later)]);
    expect(artifacts.reads.get('~/static/js/app.min.js.map')).toBe(1);
    expect(artifacts.calls.byNames).toBe(queries);
    expect((later.exception.stacktrace as StackFrame[]).at(-1)?.function).toBe('applyDiscount');
  });

  it('an event waits only for its own map: another event’s cold map does not hold it', async () => {
    const artifacts = uploaded();
    const other = { ...SCOPE, release: 'web@2.0.0' };
    artifacts.add(other, { name: '~/static/js/app.min.js.map', type: 'source_map', content: app.map.replace('"version": 3', '"version": 3, "file": "other"') });
    let open = () => {};
    artifacts.gate = new Promise<void>((resolve) => (open = resolve));
    artifacts.gated = (file) => file.name.endsWith('.map') && file.size !== app.map.length; // only release 2's map is slow
    const p = processor(artifacts);
    let slowDone = false;
    const slow = Promise.resolve(p.process([itemOf(makeEvent(appFrames(), { release: 'web@2.0.0' }))])).then(() => (slowDone = true));
    const fast = makeEvent(appFrames());
    await p.process([itemOf(fast)]);
    expect(slowDone).toBe(false);
    expect((fast.exception.stacktrace as StackFrame[]).at(-1)?.function).toBe('applyDiscount');
    open();
    await slow;
  });

  it('evicts past cache_bytes (least recently used first)', async () => {
    const artifacts = uploaded();
    const p = processor(artifacts, { cache_bytes: 1024 * 1024 });
    const releases = ['web@1.0.0', 'web@1.0.1', 'web@1.0.2'];
    for (const release of releases.slice(1)) {
      artifacts.add(
        { ...SCOPE, release },
        { name: '~/static/js/app.min.js.map', type: 'source_map', content: `${app.map}\n${' '.repeat(releases.indexOf(release))}` },
      );
    }
    for (const release of releases) await p.process([itemOf(makeEvent(appFrames(), { release }))]);
    expect(p.services.cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(p.services.cache.size).toBeGreaterThan(0);
  });
});

describe('worker pool', () => {
  it('runs jobs one at a time per worker, in order, and fails queued jobs on close', async () => {
    const pool = new WorkerPool(1);
    const map = Buffer.from(app.map);
    const results = await Promise.all([
      pool.run('sourcemap', map),
      pool.run('sourcemap', Buffer.from('{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}')),
    ]);
    expect(results[0].sources.some((s) => s.endsWith('src/pricing.ts'))).toBe(true);
    expect(pool.pending).toEqual({ queued: 0, running: 0 });
    const queued = [pool.run('sourcemap', map), pool.run('sourcemap', map)];
    const settled = Promise.allSettled(queued);
    await pool.close();
    expect((await settled).map((s) => s.status)).toEqual(['rejected', 'rejected']);
    await expect(pool.run('sourcemap', map)).rejects.toThrow(/shut down/);
  });

  it('validates what it decodes: index out of range, missing fields', async () => {
    const pool = new WorkerPool(1);
    try {
      await expect(pool.run('sourcemap', Buffer.from('{"version":3,"sources":["a.js"],"names":[],"mappings":"ACAA"}'))).rejects.toThrow(
        /source index 1 outside the 1 sources/,
      );
      await expect(pool.run('sourcemap', Buffer.from('{"version":3,"sources":["a.js"],"names":[]}'))).rejects.toThrow(/no "mappings"/);
      await expect(pool.run('sourcemap', Buffer.from('[1,2]'))).rejects.toThrow(/not a JSON object/);
      const guarded = await pool.run('sourcemap', Buffer.from(`)]}'\n{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}`));
      expect(guarded.sources).toEqual(['a.js']);
    } finally {
      await pool.close();
    }
  });
});
