// The engine on its own: components here are small test fixtures registered under their own
// type names, so the pipeline graph, fan-in/fan-out, budgets and lifecycle are tested without
// storage. (The real components are exercised end to end in test/e2e.)
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfigText } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';
import type { ConnectorFactory, Consumer, ExporterFactory, ProcessorFactory, ReceiverFactory } from '../../src/engine/component.js';
import { ExportError, OverloadedError, ShuttingDownError } from '../../src/engine/errors.js';
import { reserve } from '../../src/engine/fanout.js';
import { PipelineGraph } from '../../src/engine/graph.js';
import type { Host } from '../../src/engine/host.js';
import { drop, reject, type Item, type Signal } from '../../src/engine/item.js';
import { Registry } from '../../src/engine/registry.js';
import { Metrics } from '../../src/telemetry/metrics.js';

interface Harness {
  consumers: Map<string, Partial<Record<Signal, Consumer>>>;
  exported: Map<string, Item[]>;
  lifecycle: string[];
  gate?: Promise<void>;
  connectorGate?: Promise<void>;
  failing: Set<string>;
}

function registryFor(h: Harness): Registry {
  const receiver: ReceiverFactory<unknown> = {
    kind: 'receiver',
    type: 'test_in',
    signals: ['events', 'traces'],
    stability: { events: 'development', traces: 'development' },
    description: 'test receiver',
    configSchema: z.object({}).strict(),
    create: ({ id, consumers }) => {
      h.consumers.set(id.text, consumers);
      return { start: async () => void h.lifecycle.push(`start ${id.text}`), shutdown: async () => void h.lifecycle.push(`stop ${id.text}`) };
    },
  };
  const processor: ProcessorFactory<{ mark: string }> = {
    kind: 'processor',
    type: 'mark',
    signals: ['events', 'traces'],
    stability: { events: 'development', traces: 'development' },
    description: 'appends a mark; drops {drop: true}; rejects {bad: true}',
    configSchema: z.object({ mark: z.string().default('m') }).strict(),
    create: ({ id, config }) => ({
      start: async () => void h.lifecycle.push(`start ${id.text}`),
      shutdown: async () => void h.lifecycle.push(`stop ${id.text}`),
      process: (items) => {
        for (const item of items) {
          const data = item.data as { marks: string[]; drop?: boolean; bad?: boolean };
          if (data.drop) drop(item, 'asked_to');
          else if (data.bad) reject(item, 'bad item', [{ path: 'bad', message: 'is true' }]);
          else data.marks.push(config.mark);
        }
      },
    }),
  };
  const exporter: ExporterFactory<unknown> = {
    kind: 'exporter',
    type: 'memory',
    signals: ['events', 'traces'],
    stability: { events: 'development', traces: 'development' },
    description: 'collects items in memory',
    configSchema: z.object({}).strict(),
    create: ({ id }) => ({
      start: async () => void h.lifecycle.push(`start ${id.text}`),
      shutdown: async () => void h.lifecycle.push(`stop ${id.text}`),
      export: async (_signal, items) => {
        await h.gate;
        if (h.failing.has(id.text)) throw new Error('disk full');
        h.exported.set(id.text, [...(h.exported.get(id.text) ?? []), ...items]);
      },
    }),
  };
  const connector: ConnectorFactory<unknown> = {
    kind: 'connector',
    type: 'split',
    from: 'traces',
    to: 'events',
    stability: 'development',
    description: 'one event per traces item, {n: n * 10}',
    configSchema: z.object({}).strict(),
    create: ({ id, consumer }) => ({
      start: async () => void h.lifecycle.push(`start ${id.text}`),
      shutdown: async () => void h.lifecycle.push(`stop ${id.text}`),
      export: async (_signal, batch) => {
        await h.connectorGate;
        const events = batch.map((item) => ({ ...item, data: { marks: [], n: (item.data as { n: number }).n * 10 } }));
        await consumer.consume(events);
      },
    }),
  };
  return new Registry([receiver, processor, exporter, connector]);
}

function build(yaml: string) {
  const h: Harness = { consumers: new Map(), exported: new Map(), lifecycle: [], failing: new Set() };
  const { config, errors } = resolveConfig(parseConfigText(yaml, 't.yaml'), registryFor(h), { FAULTLINE_DATA_DIR: '/tmp/unused' });
  if (!config) throw new Error(JSON.stringify(errors));
  const metrics = new Metrics();
  const graph = PipelineGraph.build(config, { metrics } as Host);
  return { h, graph, metrics };
}

function items(...data: Array<Record<string, unknown>>): Item[] {
  return data.map((d) => ({ data: { marks: [], ...d }, tenant: { orgId: 'o', projectId: 'p', dataset: 'live' }, receivedAt: 0, size: 10 }));
}

/** One events pipeline from test_in to memory, with this in-flight budget. */
function oneBudgetedPipeline(items: number, bytes: number): string {
  return `
receivers: { test_in: {} }
exporters: { memory: {} }
service:
  pipelines:
    events: { receivers: [test_in], exporters: [memory], max_in_flight: { items: ${items}, bytes: ${bytes} } }
`;
}

const TWO_RECEIVERS_TWO_EXPORTERS = `
receivers: { test_in/a: {}, test_in/b: {} }
processors: { mark/one: { mark: one }, mark/two: { mark: two } }
exporters: { memory/x: {}, memory/y: {} }
service:
  pipelines:
    events:
      receivers: [test_in/a, test_in/b]
      processors: [mark/one, mark/two]
      exporters: [memory/x, memory/y]
`;

describe('pipeline graph', () => {
  it('runs processors in order and fans in from several receivers and out to every exporter', async () => {
    const { h, graph } = build(TWO_RECEIVERS_TWO_EXPORTERS);
    await graph.start();
    await h.consumers.get('test_in/a')?.events?.consume(items({ n: 1 }));
    await h.consumers.get('test_in/b')?.events?.consume(items({ n: 2 }));
    for (const exporter of ['memory/x', 'memory/y']) {
      const got = h.exported.get(exporter) ?? [];
      expect(got.map((i) => (i.data as { n: number }).n)).toEqual([1, 2]);
      expect((got[0].data as { marks: string[] }).marks).toEqual(['one', 'two']);
    }
  });

  it('starts exporters first and receivers last, and stops in the reverse order', async () => {
    const { h, graph } = build(TWO_RECEIVERS_TWO_EXPORTERS);
    await graph.start();
    await graph.shutdown();
    expect(h.lifecycle).toEqual([
      'start memory/x',
      'start memory/y',
      'start mark/one',
      'start mark/two',
      'start test_in/a',
      'start test_in/b',
      'stop test_in/a',
      'stop test_in/b',
      'stop mark/one',
      'stop mark/two',
      'stop memory/x',
      'stop memory/y',
    ]);
  });

  it('sets outcomes for dropped and rejected items, counts them, and exports only live items', async () => {
    const { h, graph, metrics } = build(TWO_RECEIVERS_TWO_EXPORTERS);
    const batch = items({ n: 1 }, { n: 2, drop: true }, { n: 3, bad: true });
    await h.consumers.get('test_in/a')?.events?.consume(batch);
    expect(batch.map((i) => i.outcome?.kind)).toEqual([undefined, 'dropped', 'rejected']);
    expect(batch[2].outcome).toMatchObject({ code: 'validation_failed', details: [{ path: 'bad', message: 'is true' }] });
    expect(h.exported.get('memory/x')?.length).toBe(1);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/faultline_processor_dropped_items_total\{processor="mark\/one",pipeline="events",signal="events",reason="asked_to"\} 1/);
    expect(text).toMatch(/faultline_processor_rejected_items_total\{processor="mark\/one",pipeline="events",signal="events"\} 1/);
    expect(text).toMatch(/faultline_exporter_sent_items_total\{exporter="memory\/x",signal="events"\} 1/);
    await graph.shutdown();
  });

  it('gives each pipeline of a receiver its own copy and merges what they decided', async () => {
    const { h } = build(`
receivers: { test_in: {} }
processors: { mark/a: { mark: a }, mark/b: { mark: b } }
exporters: { memory/a: {}, memory/b: {} }
service:
  pipelines:
    events/a: { receivers: [test_in], processors: [mark/a], exporters: [memory/a] }
    events/b: { receivers: [test_in], processors: [mark/b], exporters: [memory/b] }
    traces: { receivers: [test_in], exporters: [memory/b] }
`);
    const consumers = h.consumers.get('test_in');
    expect(Object.keys(consumers ?? {}).sort()).toEqual(['events', 'traces']);
    const batch = items({ n: 1 }, { n: 2, bad: true });
    await consumers?.events?.consume(batch);
    expect((h.exported.get('memory/a')?.[0].data as { marks: string[] }).marks).toEqual(['a']);
    expect((h.exported.get('memory/b')?.[0].data as { marks: string[] }).marks).toEqual(['b']);
    expect(batch[1].outcome?.kind).toBe('rejected');
  });

  it('refuses past the in-flight budget, taking nothing, and accepts again once items settle', async () => {
    const { h, graph, metrics } = build(oneBudgetedPipeline(2, 1000));
    let open!: () => void;
    h.gate = new Promise((resolve) => (open = resolve));
    const consumer = h.consumers.get('test_in')?.events as Consumer;
    const first = consumer.consume(items({ n: 1 }, { n: 2 }));
    await expect(consumer.consume(items({ n: 3 }))).rejects.toBeInstanceOf(OverloadedError);
    expect(() => consumer.assertRoom(1, 10)).toThrow(OverloadedError); // asked before a body is read: nothing taken
    expect(await metrics.registry.metrics()).toMatch(/faultline_pipeline_in_flight_items\{pipeline="events"\} 2/);
    open();
    await first;
    expect(() => consumer.assertRoom(1, 10)).not.toThrow();
    await consumer.consume(items({ n: 4 }));
    expect(h.exported.get('memory')?.map((i) => (i.data as { n: number }).n)).toEqual([1, 2, 4]);
    await graph.shutdown();
  });

  // Issue #10, item 6: room is held from before a body is read until its items are settled.
  it('holds a reservation from before a body is read: later requests are refused until it is released', async () => {
    const { h, graph, metrics } = build(oneBudgetedPipeline(10, 1000));
    const consumer = h.consumers.get('test_in')?.events as Consumer;
    const first = reserve(consumer, 1, 600);
    expect(() => reserve(consumer, 1, 600)).toThrow(OverloadedError); // nothing taken by the refusal
    const second = reserve(consumer, 1, 400);
    expect(await metrics.registry.metrics()).toMatch(/faultline_pipeline_in_flight_bytes\{pipeline="events"\} 1000/);
    expect(() => first.growTo(700)).toThrow(OverloadedError);
    await consumer.consume(items({ n: 0 })).then(
      () => expect.unreachable('a plain consume needs room for its bytes too'),
      (error: unknown) => expect(error).toBeInstanceOf(OverloadedError),
    );
    // Items consumed against a reservation take only their count: their bytes are held already.
    await first.consumer.consume(items({ n: 1 }, { n: 2 }));
    first.release();
    first.release(); // once is enough
    expect(() => second.growTo(1000)).not.toThrow();
    expect(() => reserve(consumer, 1, 1)).toThrow(OverloadedError);
    second.release();
    expect(await metrics.registry.metrics()).toMatch(/faultline_pipeline_in_flight_bytes\{pipeline="events"\} 0/);
    expect(h.exported.get('memory')?.map((i) => (i.data as { n: number }).n)).toEqual([1, 2]);
    await graph.shutdown();
  });

  it('lets a request larger than the whole budget through when it is alone, and reserves in every pipeline or none', async () => {
    const { h, graph } = build(`
receivers: { test_in: {} }
exporters: { memory: {} }
service:
  pipelines:
    events: { receivers: [test_in], exporters: [memory], max_in_flight: { items: 1, bytes: 100 } }
    events/big: { receivers: [test_in], exporters: [memory], max_in_flight: { items: 10, bytes: 10000 } }
`);
    const consumer = h.consumers.get('test_in')?.events as Consumer;
    const alone = reserve(consumer, 1, 5000);
    alone.growTo(8000); // still alone
    await alone.consumer.consume(items({ n: 1 }, { n: 2 })); // more items than the first pipeline takes, but alone
    expect(() => reserve(consumer, 1, 10)).toThrow(OverloadedError);
    alone.release();
    const small = reserve(consumer, 1, 50);
    expect(() => reserve(consumer, 1, 60)).toThrow(OverloadedError); // the first pipeline is full: the second keeps nothing
    small.release();
    expect(() => reserve(consumer, 1, 100).release()).not.toThrow();
    await graph.shutdown();
  });

  it('reserve falls back to assertRoom for a consumer that cannot hold room', async () => {
    const calls: string[] = [];
    const plain: Consumer = {
      assertRoom: (count, bytes) => void calls.push(`assertRoom ${count} ${bytes}`),
      consume: async (batch) => void calls.push(`consume ${batch.length}`),
    };
    const reservation = reserve(plain, 1, 64);
    reservation.growTo(128);
    await reservation.consumer.consume(items({ n: 1 }));
    reservation.release();
    expect(calls).toEqual(['assertRoom 1 64', 'consume 1']);
  });

  it('reports an exporter failure as ExportError and frees the budget', async () => {
    const { h } = build(oneBudgetedPipeline(1, 1000));
    h.failing.add('memory');
    const consumer = h.consumers.get('test_in')?.events as Consumer;
    await expect(consumer.consume(items({ n: 1 }))).rejects.toBeInstanceOf(ExportError);
    h.failing.clear();
    await consumer.consume(items({ n: 2 }));
    expect(h.exported.get('memory')?.length).toBe(1);
  });

  it('drains: shutdown waits for admitted items, and nothing new is admitted meanwhile', async () => {
    const { h, graph } = build(`
receivers: { test_in: {} }
exporters: { memory: {} }
service:
  pipelines:
    events: { receivers: [test_in], exporters: [memory] }
`);
    let open!: () => void;
    h.gate = new Promise((resolve) => (open = resolve));
    const consumer = h.consumers.get('test_in')?.events as Consumer;
    const pending = consumer.consume(items({ n: 1 }));
    const stopped = graph.shutdown();
    await new Promise((resolve) => setImmediate(resolve)); // receivers have stopped; the pipeline drains
    await expect(consumer.consume(items({ n: 2 }))).rejects.toThrow(/shutting down/);
    open();
    await pending;
    await stopped;
    expect(h.exported.get('memory')?.length).toBe(1);
    expect(h.lifecycle.at(-1)).toBe('stop memory');
  });
});

const CONNECTED = `
receivers: { test_in: {} }
processors: { mark/t: { mark: t }, mark/e: { mark: e } }
exporters: { memory/spans: {}, memory/events: {} }
connectors: { split: {} }
service:
  pipelines:
    traces: { receivers: [test_in], processors: [mark/t], exporters: [memory/spans, split] }
    events: { receivers: [test_in, split], processors: [mark/e], exporters: [memory/events], max_in_flight: { items: 1, bytes: 1000 } }
`;

describe('connectors', () => {
  it('take the items of one pipeline and feed another; the sender waits for both', async () => {
    const { h, graph } = build(CONNECTED);
    await graph.start();
    const batch = items({ n: 1 }, { n: 2, bad: true });
    await h.consumers.get('test_in')?.traces?.consume(batch);
    expect(batch.map((i) => i.outcome?.kind)).toEqual([undefined, 'rejected']);
    expect(h.exported.get('memory/spans')?.map((i) => (i.data as { n: number }).n)).toEqual([1]);
    const events = h.exported.get('memory/events') ?? [];
    expect(events.map((i) => i.data)).toEqual([{ marks: ['e'], n: 10 }]);
    await graph.shutdown();
  });

  it('start after the pipelines they feed and before the receivers feeding them; stop in between', async () => {
    const { h, graph } = build(CONNECTED);
    await graph.start();
    await graph.shutdown();
    expect(h.lifecycle).toEqual([
      'start memory/spans',
      'start memory/events',
      'start mark/t',
      'start mark/e',
      'start split',
      'start test_in',
      'stop test_in',
      'stop split',
      'stop mark/t',
      'stop mark/e',
      'stop memory/spans',
      'stop memory/events',
    ]);
  });

  it('a refusal of the pipeline a connector feeds reaches the sender as that refusal, not as an export failure', async () => {
    const { h, graph } = build(CONNECTED);
    let open!: () => void;
    h.gate = new Promise((resolve) => (open = resolve));
    const consumers = h.consumers.get('test_in');
    const busy = consumers?.events?.consume(items({ n: 0 })); // holds the events pipeline's one slot
    await expect(consumers?.traces?.consume(items({ n: 1 }))).rejects.toBeInstanceOf(OverloadedError);
    open();
    await busy;
    await graph.shutdown();
  });

  it('shutdown drains upstream first: a batch in flight through a connector still gets through', async () => {
    const { h, graph } = build(CONNECTED);
    let open!: () => void;
    h.connectorGate = new Promise((resolve) => (open = resolve));
    const consumer = h.consumers.get('test_in')?.traces as Consumer;
    const pending = consumer.consume(items({ n: 3 }));
    const stopped = graph.shutdown();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(consumer.consume(items({ n: 4 }))).rejects.toBeInstanceOf(ShuttingDownError);
    open();
    await pending;
    await stopped;
    expect(h.exported.get('memory/events')?.map((i) => (i.data as { n: number }).n)).toEqual([30]);
  });
});
