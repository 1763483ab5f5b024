// Every registered component, of every kind, through one real lifecycle: built from its default
// config in the smallest pipelines its contracts allow (what it requires provided by real upstream
// components, chosen from the registry by their `provides`), started in the real service, sent one
// representative item over a real protocol, the item read back through the API, stopped cleanly.
// The cases come from defaultRegistry().list(), so a component added to src/components.ts is
// covered without a line here, unless it handles a signal, speaks a protocol or makes an output
// that the fixtures below do not know: then its case fails and says which fixture to add.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configKeys } from '../../src/cli/component-docs.js';
import { defaultRegistry } from '../../src/components.js';
import { STABILITIES, type ComponentFactory, type ComponentKind, type Facts } from '../../src/engine/component.js';
import type { Signal } from '../../src/engine/item.js';
import { Registry } from '../../src/engine/registry.js';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { listenersOf } from '../../src/http/server-extension.js';

const THIS_FILE = 'test/engine/conformance.test.ts';
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const NOW_MS = Date.now() - 60_000;
/** Longer than any shutdown here should take, shorter than the test's timeout: a hang fails with a message. */
const STOP_DEADLINE_MS = 20_000;

/** One item as a client sends it, and the check that it arrived where reads look for it. */
interface Representative {
  /** The record as POST /v1/<signal> takes it. */
  record: Record<string, unknown>;
  /** Reads it back through the API; fails the test when it is not there. */
  readBack(svc: TestService): Promise<void>;
}

/** Sends a record to a receiver over its real protocol and checks the receiver took it. */
type Sender = (svc: TestService, record: Record<string, unknown>) => Promise<void>;

function representativeSpan(): Record<string, unknown> & { trace_id: string; span_id: string; name: string } {
  return { trace_id: hex(16), span_id: hex(8), name: 'GET /conformance', service_name: 'conformance', start_time: NOW_MS, end_time: NOW_MS + 25 };
}

/** Per signal, the item every processor and exporter of that signal is tried with. */
const ITEMS: Partial<Record<Signal, () => Representative>> = {
  events: () => {
    const id = randomUUID();
    const record = fullEvent({ id, message: `conformance ${id}` });
    return {
      record,
      async readBack(svc) {
        const response = await svc.api(`/v1/events/${id}`);
        expect(response.status, `GET /v1/events/${id}`).toBe(200);
        expect(await response.json()).toMatchObject({ id, message: record.message, exception: { type: 'TypeError' } });
      },
    };
  },
  traces: () => {
    const record = representativeSpan();
    return {
      record,
      async readBack(svc) {
        const response = await svc.api(`/v1/traces/${record.trace_id}`);
        expect(response.status, `GET /v1/traces/${record.trace_id}`).toBe(200);
        expect(await response.json()).toMatchObject({ trace_id: record.trace_id, span_count: 1, spans: [{ span_id: record.span_id, name: record.name }] });
      },
    };
  },
  replays: () => {
    const replayId = `rpl_${hex(12)}`;
    const events = [
      { type: 4, data: { href: 'https://conformance.example/', width: 800, height: 600 }, timestamp: NOW_MS },
      { type: 2, data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { top: 0, left: 0 } }, timestamp: NOW_MS + 1 },
    ];
    return {
      record: { replay_id: replayId, segment_id: 0, environment: 'conformance', events },
      async readBack(svc) {
        const response = await svc.api(`/v1/replays/${replayId}`);
        expect(response.status, `GET /v1/replays/${replayId}`).toBe(200);
        expect(await response.json()).toMatchObject({ id: replayId, segment_count: 1, environment: 'conformance', urls: ['https://conformance.example/'] });
        expect(await (await svc.api(`/v1/replays/${replayId}/segments/0`)).json()).toEqual(events);
      },
    };
  },
};

/** Per receiver type and signal, how a client sends to it. */
const SENDERS: Record<string, Partial<Record<Signal, Sender>>> = {
  http_api: {
    async events(svc, record) {
      const response = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(record) });
      expect(response.status, 'POST /v1/events').toBe(202);
      expect(await response.json()).toMatchObject({ id: record.id, status: 'queued' });
    },
    async traces(svc, record) {
      const response = await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [record] }) });
      expect(response.status, 'POST /v1/traces').toBe(202);
      expect(await response.json()).toEqual({ accepted: 1, rejected: 0, errors: [] });
    },
    async replays(svc, record) {
      const response = await svc.api('/v1/replays', { method: 'POST', body: JSON.stringify(record) });
      expect(response.status, 'POST /v1/replays').toBe(202);
      expect(await response.json()).toEqual({ replay_id: record.replay_id, segment_id: 0, status: 'stored' });
    },
  },
  otlp: {
    async traces(svc, record) {
      if (!svc.otlpUrl) throw new Error('the otlp receiver reported no port');
      const response = await fetch(`${svc.otlpUrl}/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' },
        body: otlpJson(record),
      });
      expect(response.status, 'OTLP/HTTP POST /v1/traces').toBe(200);
      expect(await response.json()).toEqual({}); // no partialSuccess: nothing rejected
    },
  },
};

/** Per connector type: an item of its `from` signal, and where what it makes of it is read. */
const CONNECTOR_ITEMS: Record<string, () => Representative> = {
  exceptions: () => {
    const span = representativeSpan();
    const value = `conformance ${span.trace_id}`;
    const record = {
      ...span,
      status: 'error',
      events: [{ name: 'exception', time: NOW_MS + 5, attributes: { 'exception.type': 'RangeError', 'exception.message': value } }],
    };
    return {
      record,
      async readBack(svc) {
        const list = await svc.api(`/v1/events?project_id=default&query=${encodeURIComponent(`trace_id:${span.trace_id}`)}`);
        expect(list.status, 'GET /v1/events?query=trace_id:…').toBe(200);
        const { data } = (await list.json()) as { data: Array<{ id: string }> };
        expect(data, 'error events made from the span').toHaveLength(1);
        const event = await svc.api(`/v1/events/${data[0].id}`);
        expect(event.status).toBe(200);
        expect(await event.json()).toMatchObject({ trace_id: span.trace_id, exception: { type: 'RangeError', value } });
      },
    };
  },
};

/** The OTLP/JSON ExportTraceServiceRequest for a /v1/traces span record (ids hex, times in ms). */
function otlpJson(span: Record<string, unknown>): string {
  const nanos = (ms: unknown) => `${BigInt(ms as number) * 1_000_000n}`;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: span.service_name } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: span.trace_id,
                spanId: span.span_id,
                name: span.name,
                startTimeUnixNano: nanos(span.start_time),
                endTimeUnixNano: nanos(span.end_time),
              },
            ],
          },
        ],
      },
    ],
  });
}

// --- planning one component's case -------------------------------------------------------------

type FactoryOf<K extends ComponentKind> = Extract<ComponentFactory, { kind: K }>;

function ofKind<K extends ComponentKind>(registry: Registry, kind: K): Array<FactoryOf<K>> {
  return registry.list(kind).filter((f): f is FactoryOf<K> => f.kind === kind);
}

function facts(factory: ComponentFactory, which: 'requires' | 'provides', signal: Signal): readonly string[] {
  return (factory[which] as Facts | undefined)?.[signal] ?? [];
}

function label(factory: ComponentFactory): string {
  return `${factory.kind} "${factory.type}"`;
}

/** Whether a factory can stand before a processor or exporter in a pipeline of the signal (and so provide it facts). */
function upstreamOf(factory: ComponentFactory, signal: Signal): boolean {
  if (factory.kind === 'connector') return factory.to === signal;
  return (factory.kind === 'receiver' || factory.kind === 'processor') && factory.signals.includes(signal);
}

/** What a factory requires that no other registered factory that can come before it provides. */
function unsatisfiedRequires(factory: ComponentFactory, registry: Registry): string[] {
  const problems: string[] = [];
  for (const [signal, required] of Object.entries(factory.requires ?? {}) as Array<[Signal, readonly string[]]>)
    for (const fact of required) {
      const providers = registry.list().filter((other) => other !== factory && upstreamOf(other, signal) && facts(other, 'provides', signal).includes(fact));
      if (providers.length === 0)
        problems.push(`${label(factory)} requires ${fact} on ${signal}, which no other registered receiver, processor or connector provides`);
    }
  return problems;
}

/**
 * The processors of a pipeline of `signal` whose receivers give `available`, holding `mandatory`
 * and providing what they and the pipeline's exporter (`sinkRequires`) require: the providers of
 * each missing fact are added from the registry, then ordered by requires/provides and `before`.
 */
function processorChain(
  registry: Registry,
  signal: Signal,
  available: readonly string[],
  mandatory: Array<FactoryOf<'processor'>>,
  sinkRequires: readonly string[],
) {
  const chosen = [...mandatory];
  for (;;) {
    const have = new Set([...available, ...chosen.flatMap((p) => facts(p, 'provides', signal))]);
    const missing = [...sinkRequires, ...chosen.flatMap((p) => facts(p, 'requires', signal))].find((fact) => !have.has(fact));
    if (missing === undefined) break;
    const provider = ofKind(registry, 'processor').find(
      (p) => p.signals.includes(signal) && !chosen.includes(p) && facts(p, 'provides', signal).includes(missing),
    );
    if (!provider) throw new Error(`no registered processor provides ${missing} on ${signal}, which the pipeline needs`);
    chosen.push(provider);
  }
  const mustPrecede = (a: FactoryOf<'processor'>, b: FactoryOf<'processor'>) =>
    a !== b && (facts(b, 'requires', signal).some((fact) => facts(a, 'provides', signal).includes(fact)) || (a.before ?? []).includes(b.type));
  const ordered: Array<FactoryOf<'processor'>> = [];
  const left = ofKind(registry, 'processor').filter((p) => chosen.includes(p));
  while (left.length) {
    const next = left.findIndex((b) => !left.some((a) => mustPrecede(a, b)));
    if (next < 0) throw new Error(`the processors ${left.map((p) => p.type).join(', ')} cannot be ordered on ${signal}: their contracts form a cycle`);
    ordered.push(...left.splice(next, 1));
  }
  return ordered;
}

interface Step {
  signal: Signal;
  send: Sender;
  item: Representative;
}

interface Case {
  /** The configuration, as the YAML loader takes it (JSON is YAML). */
  yaml: string;
  /** One per pipeline a test item enters. */
  steps: Step[];
}

function missingFixture(what: string, where: string, factory: ComponentFactory): never {
  throw new Error(`${label(factory)} is registered but this conformance test has no ${what}: add one to ${where} in ${THIS_FILE}`);
}

/** The YAML of the smallest pipelines that exercise the factory on each of its signals, and what to send through them. */
function caseFor(factory: ComponentFactory, registry: Registry): Case {
  const sections: Record<ComponentKind, Record<string, object>> = { receiver: {}, processor: {}, exporter: {}, connector: {} };
  /** Configures a component from its default config (an empty section) and returns its id. */
  const use = (f: ComponentFactory) => {
    sections[f.kind][f.type] = {};
    return f.type;
  };
  const pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }> = {};
  const storage: Partial<Record<Signal, string[]>> = {};
  const steps: Step[] = [];

  const driverFor = (signal: Signal) => {
    const receiver = ofKind(registry, 'receiver').find((r) => SENDERS[r.type]?.[signal]);
    if (!receiver) return missingFixture(`receiver with a sender for ${signal}`, 'SENDERS', factory);
    return { receiver, send: SENDERS[receiver.type][signal] as Sender };
  };
  const sinkFor = (signal: Signal) => {
    const exporter = ofKind(registry, 'exporter').find((e) => (e.reads ?? []).includes(signal));
    if (!exporter)
      throw new Error(`no registered exporter serves reads of ${signal}, so ${label(factory)} cannot be read back: teach ${THIS_FILE} where to look`);
    return exporter;
  };
  /** receivers → the processors the contracts call for → exporter, read back through the exporter. */
  const pipeline = (signal: Signal, receiver: ComponentFactory, mandatory: Array<FactoryOf<'processor'>>, exporter: ComponentFactory) => {
    // A pipeline that persists items lists the processors that guard storage (scrubbing), as validate requires.
    const guarded = exporter.kind === 'exporter' && exporter.persists === true && !(receiver.kind === 'receiver' && receiver.relays?.includes(signal) === true);
    const guards = guarded ? ofKind(registry, 'processor').filter((p) => p.guardsStorage && p.signals.includes(signal) && !mandatory.includes(p)) : [];
    const chain = processorChain(registry, signal, facts(receiver, 'provides', signal), [...mandatory, ...guards], facts(exporter, 'requires', signal));
    pipelines[signal] = { receivers: [use(receiver)], processors: chain.map(use), exporters: [use(exporter)] };
  };

  if (factory.kind === 'connector') {
    const fixture = CONNECTOR_ITEMS[factory.type] ?? missingFixture('item and read-back', 'CONNECTOR_ITEMS', factory);
    const { receiver, send } = driverFor(factory.from);
    pipeline(factory.from, receiver, [], factory);
    const sink = sinkFor(factory.to);
    pipeline(factory.to, factory, [], sink);
    storage[factory.to] = [sink.type];
    steps.push({ signal: factory.from, send, item: fixture() });
  } else {
    for (const signal of factory.signals) {
      const item = ITEMS[signal]?.() ?? missingFixture(`representative ${signal} item`, 'ITEMS', factory);
      const driver =
        factory.kind === 'receiver'
          ? { receiver: factory, send: SENDERS[factory.type]?.[signal] ?? missingFixture(`sender for ${signal}`, 'SENDERS', factory) }
          : driverFor(signal);
      if (factory.kind === 'exporter' && !(factory.reads ?? []).includes(signal))
        throw new Error(`${label(factory)} does not serve reads of ${signal}, so ${THIS_FILE} cannot read its item back: teach it where to look`);
      const exporter = factory.kind === 'exporter' ? factory : sinkFor(signal);
      pipeline(signal, driver.receiver, factory.kind === 'processor' ? [factory] : [], exporter);
      storage[signal] = [exporter.type];
      steps.push({ signal, send: driver.send, item });
    }
  }
  const config = {
    receivers: sections.receiver,
    processors: sections.processor,
    exporters: sections.exporter,
    connectors: sections.connector,
    // Longer than the stop deadline below, so that a hang is reported rather than cut short.
    service: { shutdown_timeout_ms: 10 * STOP_DEADLINE_MS, storage, pipelines },
  };
  return { yaml: JSON.stringify(config, null, 2), steps };
}

/** A nested config object's keys, dotted: `{flush: {max_rows}}` → `flush.max_rows`. */
function flatKeys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix.slice(0, -1)];
  return Object.entries(value).flatMap(([key, inner]) => flatKeys(inner, `${prefix}${key}.`));
}

async function stopWithin(svc: TestService, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`svc.stop() did not resolve within ${ms} ms: a shutdown hangs`)), ms);
  });
  try {
    await Promise.race([svc.stop(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// --- the cases ---------------------------------------------------------------------------------

const registry = defaultRegistry();
const factories = registry.list().map((factory) => [factory.kind, factory.type, factory] as const);

describe('component metadata', () => {
  it('the registry lists components of every kind', () => {
    expect(new Set(registry.list().map((f) => f.kind))).toEqual(new Set(['receiver', 'processor', 'exporter', 'connector']));
  });

  it.each(factories)('%s %s: stability per signal, a described config key for every key, requires others provide', (_kind, _type, factory) => {
    if (factory.kind === 'connector') expect(STABILITIES, `${label(factory)} stability`).toContain(factory.stability);
    else {
      expect(factory.signals.length, `${label(factory)} signals`).toBeGreaterThan(0);
      for (const signal of factory.signals) expect(STABILITIES, `${label(factory)} stability for ${signal}`).toContain(factory.stability[signal]);
    }
    expect(factory.description.trim(), `${label(factory)} description`).not.toBe('');

    // The README tables and `faultline components` list configKeys: every key needs its text.
    const keys = configKeys(factory.configSchema);
    for (const key of keys) expect(key.description, `${label(factory)}: config key ${key.key} has no .describe()`).not.toBe('');
    const defaults = factory.configSchema.parse({});
    const listed = keys.map((k) => k.key);
    for (const key of flatKeys(defaults).filter((k) => k !== ''))
      expect(listed, `${label(factory)}: default config key ${key} is not in the table`).toContain(key);

    expect(unsatisfiedRequires(factory, registry)).toEqual([]);
  });
});

describe('component lifecycle', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeAll(() => void process.on('unhandledRejection', onUnhandled));
  afterAll(() => void process.off('unhandledRejection', onUnhandled));

  // The kafka receiver and exporter need a broker (the librdkafka mock): their lifecycle, from
  // ingest to reads, is tested in test/e2e/kafka.test.ts and test/receivers/kafka.test.ts. The
  // monitors receiver takes no sender's item: it makes its own events of failures, which
  // test/e2e/monitors.test.ts follows from a check-in to the issue they open.
  const testedElsewhere = (type: string) => type === 'kafka' || type === 'monitors';
  it.each(factories.filter(([, type]) => !testedElsewhere(type)))(
    '%s %s: starts from its default config, carries one item to where reads find it, stops cleanly',
    async (_kind, _type, factory) => {
      const { yaml, steps } = caseFor(factory, registry);
      unhandled.length = 0;
      const svc = await startService({ yaml });
      let stopping: Promise<void> | undefined;
      try {
        const resolved = svc.service.config.components[factory.kind].get(factory.type);
        // Keys a factory takes from the environment (the test service sets FAULTLINE_OTLP_PORT=0) are left out.
        const fromEnv = (config: unknown) =>
          Object.fromEntries(Object.entries(config as Record<string, unknown>).filter(([key]) => factory.defaults?.[key]?.env === undefined));
        expect(fromEnv(resolved?.config), `${label(factory)} runs with its default config`).toEqual(fromEnv(factory.configSchema.parse({})));
        for (const { send, item } of steps) {
          await send(svc, item.record);
          await item.readBack(svc);
        }
        const ports = [new URL(svc.baseUrl).port, ...[...listenersOf(svc.service.host).values()].map(String)];
        await (stopping = stopWithin(svc, STOP_DEADLINE_MS));
        // Every listener is closed once stop resolves.
        for (const port of ports) {
          const answer = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (response) => `answered ${response.status}`,
            () => 'refused',
          );
          expect(answer, `port ${port} after stop`).toBe('refused');
        }
        await new Promise((resolve) => setImmediate(resolve));
        expect(unhandled, 'unhandled rejections').toEqual([]);
      } finally {
        // After a failure before the stop; a stop that hung is left behind (the deadline reported it).
        if (!stopping) await stopWithin(svc, STOP_DEADLINE_MS).catch(() => undefined);
      }
    },
  );
});

describe('the conformance cases themselves', () => {
  // Factories that are never started: only their metadata is read.
  const base = { description: 'a test double', configSchema: z.object({}).strict() };
  const withExtra = (extra: ComponentFactory) => new Registry([...registry.list(), extra]);

  it('a component of a signal without a representative item fails, naming the fixture to add', () => {
    const replays: ComponentFactory = {
      ...base,
      kind: 'exporter',
      type: 'replay_store',
      signals: ['replays'],
      stability: { replays: 'alpha' },
      reads: ['replays'],
      create: () => ({ export: async () => undefined }),
    };
    // Every signal has its item now: take the replays one away for this check.
    const item = ITEMS.replays;
    delete ITEMS.replays;
    try {
      expect(() => caseFor(replays, withExtra(replays))).toThrow(
        /exporter "replay_store" is registered but this conformance test has no representative replays item: add one to ITEMS/,
      );
    } finally {
      ITEMS.replays = item;
    }
  });

  it('a receiver without a sender, and a connector without an item, fail likewise', () => {
    const receiver: ComponentFactory = {
      ...base,
      kind: 'receiver',
      type: 'carrier_pigeon',
      signals: ['events'],
      stability: { events: 'alpha' },
      create: () => ({}),
    };
    expect(() => caseFor(receiver, withExtra(receiver))).toThrow(/receiver "carrier_pigeon" .* no sender for events: add one to SENDERS/);
    const connector: ComponentFactory = {
      ...base,
      kind: 'connector',
      type: 'spans_to_events',
      from: 'traces',
      to: 'events',
      stability: 'alpha',
      create: () => ({ export: async () => undefined }),
    };
    expect(() => caseFor(connector, withExtra(connector))).toThrow(/connector "spans_to_events" .* add one to CONNECTOR_ITEMS/);
  });

  it('a requirement no other component provides is reported', () => {
    const needy: ComponentFactory = {
      ...base,
      kind: 'processor',
      type: 'needy',
      signals: ['events'],
      stability: { events: 'alpha' },
      requires: { events: ['validated', 'geolocated'] },
      create: () => ({ process: () => undefined }),
    };
    expect(unsatisfiedRequires(needy, withExtra(needy))).toEqual([
      'processor "needy" requires geolocated on events, which no other registered receiver, processor or connector provides',
    ]);
    expect(() => caseFor(needy, withExtra(needy))).toThrow(/no registered processor provides geolocated on events/);
  });

  it('plans real upstream components in contract order', () => {
    const issues = registry.get('processor', 'issues');
    if (!issues) throw new Error('no issues processor');
    const { yaml } = caseFor(issues, registry);
    const config = JSON.parse(yaml) as { service: { pipelines: Record<string, { processors: string[]; exporters: string[] }> } };
    expect(config.service.pipelines.events).toMatchObject({ processors: ['validation', 'scrubbing', 'grouping', 'issues'], exporters: ['duckdb'] });
  });
});
