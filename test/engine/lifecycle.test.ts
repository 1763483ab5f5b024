// The generated lifecycle test (as the Collector's generated_component_test.go): every factory the
// build registers (src/components.ts) is created with its default config on a test host built from
// the extensions it declares — real extensions on a temporary data directory, nothing else, no
// casts — started, handed one valid item of each signal it handles (receivers: started and shut
// down), and shut down; every extension is started and shut down with its dependencies. A
// component that looks up an extension it does not declare fails here. The items are made valid
// by the real processors the default pipeline runs before the component (config/default.yaml).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/components.js';
import { readConfigFile } from '../../src/config/load.js';
import { resolveConfig, type ResolvedConfig } from '../../src/config/resolve.js';
import type { ComponentFactory, Consumer, Processor } from '../../src/engine/component.js';
import type { Host } from '../../src/engine/host.js';
import type { Item, Signal } from '../../src/engine/item.js';
import { fullEvent } from '../support/service.js';
import { startMockBroker, type MockBroker } from '../support/kafka.js';
import { testHost, type TestHost } from '../support/test-host.js';

const registry = defaultRegistry();
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const NOW = Date.now() - 60_000;

/** One raw item of each signal, as a receiver hands it on. */
const RAW: Record<Signal, () => unknown> = {
  events: () => fullEvent({ id: randomUUID(), message: 'lifecycle' }),
  traces: () => ({ trace_id: hex(16), span_id: hex(8), name: 'GET /lifecycle', service_name: 'lifecycle', start_time: NOW, end_time: NOW + 5 }),
  // As the http_api receiver hands a chunk on (src/records/replay.ts: ReplayChunkInput).
  replays: () => ({
    fields: { replay_id: `rpl_${hex(12)}`, segment_id: 0 },
    form: 'events',
    events: [
      { type: 4, data: { href: 'https://lifecycle.example/', width: 800, height: 600 }, timestamp: NOW },
      { type: 2, data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { top: 0, left: 0 } }, timestamp: NOW + 1 },
    ],
  }),
};

let broker: MockBroker;
let defaults: ResolvedConfig;
const hosts: TestHost[] = [];

beforeAll(async () => {
  broker = await startMockBroker();
  const { config, errors } = resolveConfig(readConfigFile(undefined), registry, {});
  if (!config) throw new Error(JSON.stringify(errors));
  defaults = config;
}, 60_000);
afterAll(async () => {
  for (const opened of hosts) await opened.close();
  await broker?.stop();
});

/** The config a type gets here: its defaults, plus a broker for the Kafka components (they need one). */
function configOf(factory: ComponentFactory): unknown {
  // The mock broker has no controller: the exporter's idempotent producer cannot run against it.
  const section =
    factory.type === 'kafka'
      ? { brokers: [broker.brokers], ...(factory.kind === 'receiver' ? { group_id: `lifecycle-${hex(4)}` } : { idempotent: false }) }
      : {};
  return factory.configSchema.parse(section);
}

async function hostFor(types: readonly string[]): Promise<Host> {
  // Port 0: receivers with listeners of their own take any free port.
  const opened = await testHost({ extensions: types, service: { otlp: { host: '127.0.0.1', port: 0 } } });
  hosts.push(opened);
  return opened.host;
}

/** A processor of the default pipeline of `signal`, made on `host` (which runs what it declares). */
async function defaultProcessor(type: string, signal: Signal, host: Host): Promise<Processor> {
  const component = defaults.components.processor.get(type);
  if (!component || component.factory.kind !== 'processor') throw new Error(`no processor ${type} in the default config`);
  const processor = component.factory.create({ id: component.id, config: component.config, host, signal, pipeline: signal });
  await processor.start?.();
  return processor;
}

/** A raw item of `signal` run through the default pipeline's processors before `until` (all of them when absent). */
async function validItem(signal: Signal, until?: string, raw: unknown = RAW[signal]()): Promise<Item> {
  const pipeline = defaults.pipelines.find((p) => p.id === signal);
  if (!pipeline) throw new Error(`no default ${signal} pipeline`);
  const before = until === undefined ? pipeline.processors : pipeline.processors.slice(0, Math.max(0, pipeline.processors.indexOf(until)));
  const types = before.flatMap((type) => defaults.components.processor.get(type)?.factory.extensions ?? []);
  const host = await hostFor(types);
  const item: Item = { data: raw, tenant: { orgId: 'default', projectId: 'default', dataset: 'live' }, receivedAt: Date.now(), size: 1000 };
  for (const type of before) {
    const processor = await defaultProcessor(type, signal, host);
    await processor.process([item]);
    await processor.shutdown?.();
    expect(item.outcome, `${type} on the ${signal} item`).toBeUndefined();
  }
  return item;
}

/** A consumer that keeps what it is handed. */
function collector(): Consumer & { items: Item[] } {
  const items: Item[] = [];
  return { items, consume: async (batch) => void items.push(...batch), assertRoom: () => undefined };
}

const factories = registry.list();

describe('every component: created from its default config on a host of its declared extensions, started, fed, stopped', () => {
  it('covers every registered factory', () => {
    expect(factories.length).toBeGreaterThan(10);
  });

  for (const factory of factories) {
    it(`${factory.kind} ${factory.type}`, { timeout: 60_000 }, async () => {
      const id = { type: factory.type, text: factory.type };
      const config = configOf(factory);
      if (factory.kind === 'receiver') {
        const host = await hostFor(factory.extensions ?? []);
        const consumers = Object.fromEntries(factory.signals.map((signal) => [signal, collector()]));
        const receiver = factory.create({ id, config, host, consumers });
        await receiver.start?.();
        await receiver.shutdown?.();
        return;
      }
      if (factory.kind === 'processor') {
        for (const signal of factory.signals) {
          const item = await validItem(signal, defaults.pipelines.find((p) => p.id === signal)?.processors.includes(factory.type) ? factory.type : undefined);
          const host = await hostFor(factory.extensions ?? []);
          const processor = factory.create({ id, config, host, signal, pipeline: signal });
          await processor.start?.();
          await processor.process([item]);
          expect(item.outcome, `${factory.type} on a valid ${signal} item`).toBeUndefined();
          await processor.shutdown?.();
        }
        return;
      }
      if (factory.kind === 'exporter') {
        const host = await hostFor(factory.extensions ?? []);
        const exporter = factory.create({ id, config, host, readOnly: false });
        await exporter.start?.();
        for (const signal of factory.signals) await exporter.export(signal, [await validItem(signal)]);
        await exporter.shutdown?.();
        return;
      }
      const host = await hostFor(factory.extensions ?? []);
      const consumer = collector();
      const connector = factory.create({ id, config, host, consumer });
      await connector.start?.();
      // What the exceptions connector turns into an event: a span that recorded an exception.
      const raw = {
        ...(RAW[factory.from]() as object),
        status: 'error',
        events: [{ name: 'exception', time: NOW + 1, attributes: { 'exception.type': 'RangeError', 'exception.message': 'x' } }],
      };
      const item = await validItem(factory.from, undefined, raw);
      await connector.export(factory.from, [item]);
      expect(consumer.items.length, `what ${factory.type} handed on`).toBeGreaterThan(0);
      await connector.shutdown?.();
    });
  }
});

describe('every extension: started with its dependencies and stopped', () => {
  for (const factory of registry.extensions()) {
    it(`extension ${factory.type}`, async () => {
      const opened = await testHost({ extensions: [factory.type] });
      try {
        expect(opened.host.extension(factory.type)).toBeDefined();
        for (const dependency of factory.dependencies ?? []) expect(opened.host.extension(dependency), `${factory.type} needs ${dependency}`).toBeDefined();
      } finally {
        await opened.close();
      }
      expect(opened.host.extension(factory.type)).toBeUndefined();
    });
  }
});
