// The contracts factories declare (src/engine/component.ts), checked by resolve.ts: requires and
// provides along a pipeline, `before`, singletons, connectors, and service.storage naming
// exporters. The shipped components are used where they show the rule; small fakes where a rule
// needs a component Faultline does not ship (a symbolication processor, an exporter that serves
// no reads).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfigText } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { defaultRegistry } from '../../src/components.js';
import type { ComponentFactory, ExporterFactory, ExporterSettings, ProcessorFactory, ReceiverFactory } from '../../src/engine/component.js';
import { PipelineGraph } from '../../src/engine/graph.js';
import type { Host } from '../../src/engine/host.js';
import { Registry } from '../../src/engine/registry.js';
import { Metrics } from '../../src/telemetry/metrics.js';

const resolve = (yaml: string, env: Record<string, string> = {}, registry = defaultRegistry()) => resolveConfig(parseConfigText(yaml, 'x.yaml'), registry, env);

/** The errors as `path: message`, for compact expectations. */
const problems = (yaml: string, env: Record<string, string> = {}, registry = defaultRegistry()) =>
  resolve(yaml, env, registry).errors.map((e) => `${e.path}: ${e.message}`);

const empty = z.object({}).strict();

/** Test stand-ins: an `in` receiver, processors of the given shapes, a `sink` exporter that serves no reads. */
function fakeRegistry(created: Array<{ id: string; readOnly: boolean }> = []): Registry {
  const processor = (type: string, extra: Partial<ProcessorFactory<unknown>>): ProcessorFactory<unknown> => ({
    kind: 'processor',
    type,
    signals: ['events'],
    stability: { events: 'development' },
    description: type,
    configSchema: empty,
    create: () => ({ process: () => undefined }),
    ...extra,
  });
  const receiver: ReceiverFactory<unknown> = {
    kind: 'receiver',
    type: 'in',
    signals: ['events', 'traces'],
    stability: { events: 'development', traces: 'development' },
    description: 'in',
    configSchema: empty,
    create: () => ({}),
  };
  const exporter = (type: string, extra: Partial<ExporterFactory<unknown>> = {}): ExporterFactory<unknown> => ({
    kind: 'exporter',
    type,
    signals: ['events', 'traces'],
    stability: { events: 'development', traces: 'development' },
    description: type,
    configSchema: empty,
    create: (settings: ExporterSettings<unknown>) => {
      created.push({ id: settings.id.text, readOnly: settings.readOnly });
      return { export: async () => undefined };
    },
    ...extra,
  });
  const factories: ComponentFactory[] = [
    receiver,
    processor('validation', { provides: { events: ['validated'] } }),
    processor('symbolication', { requires: { events: ['validated'] }, before: ['grouping'] }),
    processor('grouping', { requires: { events: ['validated'] }, provides: { events: ['issue_id'] } }),
    processor('issues', { requires: { events: ['issue_id'] } }),
    exporter('store', { reads: ['events', 'traces'], singleton: true }),
    exporter('lake', { reads: ['events'] }),
    exporter('sink'),
  ];
  return new Registry(factories);
}

describe('requires and provides along a pipeline', () => {
  it('duckdb without grouping before it: the error names the processor to add', () => {
    expect(
      problems(`receivers: { http_api: {} }
processors: { validation: {}, scrubbing: { enabled: false } }
exporters: { duckdb: {} }
service:
  pipelines:
    events: { receivers: [http_api], processors: [validation, scrubbing], exporters: [duckdb] }
`),
    ).toEqual(['service.pipelines.events.exporters[0]: exporter "duckdb" needs issue_id on events: add the grouping processor before it']);
  });

  it('collects every unmet requirement, with the line of each', () => {
    const { errors } = resolve(`receivers: { http_api: {} }
processors: { validation: {}, grouping: {}, scrubbing: { enabled: false } }
exporters: { duckdb: {}, parquet: {} }
service:
  pipelines:
    events:
      receivers: [http_api]
      processors: [grouping, validation]
      exporters: [duckdb, parquet]
    traces: { receivers: [http_api], exporters: [parquet] }
`);
    expect(errors.map((e) => [e.path, e.message, e.line])).toEqual([
      [
        'service.pipelines.events.processors[0]',
        'processor "grouping" needs validated on events: move the validation processor ("validation", processors[1]) before it',
        8,
      ],
      ['service.pipelines.traces.exporters[0]', 'exporter "parquet" needs validated on traces: add the validation processor before it', 10],
    ]);
  });

  it('a processor that must come before another (symbolication before grouping)', () => {
    const yaml = (order: string) => `receivers: { in: {} }
processors: { validation: {}, symbolication: {}, grouping: {} }
exporters: { sink: {} }
service:
  pipelines:
    events: { receivers: [in], processors: [${order}], exporters: [sink] }
`;
    expect(problems(yaml('validation, symbolication, grouping'), {}, fakeRegistry())).toEqual([]);
    expect(problems(yaml('validation, grouping, symbolication'), {}, fakeRegistry())).toEqual([
      'service.pipelines.events.processors[2]: processor "symbolication" must come before the grouping processor ("grouping", processors[1]): move it up',
    ]);
  });

  it('a processor that must come after another (issues needs the issue_id grouping provides)', () => {
    const yaml = (order: string) => `receivers: { in: {} }
processors: { validation: {}, grouping: {}, issues: {} }
exporters: { sink: {} }
service:
  pipelines:
    events: { receivers: [in], processors: [${order}], exporters: [sink] }
`;
    expect(problems(yaml('validation, grouping, issues'), {}, fakeRegistry())).toEqual([]);
    expect(problems(yaml('validation, issues, grouping'), {}, fakeRegistry())).toEqual([
      'service.pipelines.events.processors[1]: processor "issues" needs issue_id on events: move the grouping processor ("grouping", processors[2]) before it',
    ]);
    expect(problems(yaml('validation, issues'), {}, fakeRegistry())).toEqual([
      'service.pipelines.events.processors[1]: processor "issues" needs issue_id on events: add the grouping processor before it',
    ]);
  });
});

describe('singletons', () => {
  it('a second http_api or duckdb is an error at its own path; two parquet exporters are fine', () => {
    const { errors } = resolve(`receivers: { http_api: {}, http_api/admin: {} }
processors: { validation: {}, scrubbing: {}, grouping: {} }
exporters: { duckdb: {}, duckdb/second: {}, parquet: {}, parquet/archive: { path: archive } }
service:
  pipelines:
    events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [duckdb, parquet, parquet/archive] }
`);
    expect(errors.map((e) => [e.path, e.message, e.line])).toEqual([
      ['receivers.http_api/admin', 'only one receiver of type "http_api" may be configured, and "http_api" already is', 1],
      ['exporters.duckdb/second', 'only one exporter of type "duckdb" may be configured, and "duckdb" already is', 3],
    ]);
  });
});

describe('ownership', () => {
  it('two parquet exporters on one lake directory are an error at the second one', () => {
    const { errors } = resolve(`receivers: { http_api: {} }
processors: { validation: {}, scrubbing: {}, grouping: {} }
exporters: { parquet: {}, parquet/archive: { path: lake }, parquet/other: { path: elsewhere } }
service:
  data_dir: /srv/faultline
  pipelines:
    events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [parquet, parquet/archive, parquet/other] }
`);
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['exporters.parquet/archive', '"parquet" already uses the lake /srv/faultline/lake: give each instance its own'],
    ]);
  });
});

describe('service.storage names the exporters reads come from', () => {
  const PIPELINES = `receivers: { http_api: {} }
processors: { validation: {}, scrubbing: {}, grouping: {} }
exporters: { duckdb: {}, parquet: {}, parquet/archive: { path: archive } }
service:
  pipelines:
    events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [parquet, duckdb] }
    traces: { receivers: [http_api], processors: [validation, scrubbing], exporters: [duckdb, parquet/archive] }
`;

  it('defaults, per signal, to the first exporter of its pipelines that serves reads', () => {
    const { config, errors } = resolve(PIPELINES);
    expect(errors).toEqual([]);
    expect(config?.readSources).toEqual({ events: ['parquet'], traces: ['duckdb'] });
  });

  it('takes a YAML list, or a comma-separated string from the environment, and `both`', () => {
    const yaml = PIPELINES.replace('service:\n', 'service:\n  storage:\n    events: [duckdb, parquet/archive]\n    traces: both\n');
    expect(resolve(yaml).config?.readSources).toEqual({ events: ['duckdb', 'parquet/archive'], traces: ['duckdb', 'parquet'] });
    expect(resolve(yaml, { FAULTLINE_EVENTS_SOURCE: 'parquet/archive, duckdb' }).config?.readSources.events).toEqual(['parquet/archive', 'duckdb']);
  });

  it('rejects an unknown exporter, one listed twice, and one that serves no reads of the signal', () => {
    const yaml = PIPELINES.replace('service:\n', 'service:\n  storage:\n    events: [duckdb, kafka, duckdb]\n');
    expect(problems(yaml)).toEqual([
      'service.storage.events[1]: no exporter "kafka" is configured under exporters (configured exporters that serve events reads: duckdb, parquet, parquet/archive)',
      'service.storage.events[2]: "duckdb" is listed twice',
    ]);
    expect(problems(PIPELINES, { FAULTLINE_TRACES_SOURCE: 'duckdb,nope' })).toEqual([
      'service.storage.traces[1]: no exporter "nope" is configured under exporters (configured exporters that serve traces reads: duckdb, parquet, parquet/archive) (set by FAULTLINE_TRACES_SOURCE)',
    ]);
    expect(
      problems(
        `receivers: { in: {} }
exporters: { sink: {}, lake: {} }
service:
  storage: { events: sink, traces: lake }
  pipelines:
    events: { receivers: [in], exporters: [sink, lake] }
`,
        {},
        fakeRegistry(),
      ),
    ).toEqual([
      'service.storage.events[0]: exporter "sink" cannot serve reads of events',
      'service.storage.traces[0]: exporter "lake" cannot serve reads of traces',
    ]);
    expect(
      problems(
        PIPELINES.replace('parquet/archive: {} }', '}').replace(', parquet/archive]', ']').replace('service:\n', 'service:\n  storage: { traces: both }\n'),
      ).length,
    ).toBe(0);
    expect(
      problems(
        PIPELINES.replace(', parquet: {}', '').replace('[parquet, duckdb]', '[duckdb]').replace('service:\n', 'service:\n  storage: { events: both }\n'),
      ),
    ).toEqual([
      'service.storage.events: "both" means duckdb, parquet, and no exporter "parquet" is configured under exporters (configured exporters that serve events reads: duckdb, parquet/archive)',
    ]);
  });

  it('a read-only node: no pipelines, storage naming exporters, which the graph starts read-only', async () => {
    const created: Array<{ id: string; readOnly: boolean }> = [];
    const registry = fakeRegistry(created);
    const { config, errors } = resolve(
      `exporters: { store: {}, lake: {}, sink: {} }
service:
  storage: { events: [store, lake], traces: store }
`,
      {},
      registry,
    );
    expect(errors).toEqual([]);
    expect(config?.pipelines).toEqual([]);
    expect(config?.readSources).toEqual({ events: ['store', 'lake'], traces: ['store'] });
    const graph = PipelineGraph.build(config!, { metrics: new Metrics() } as Host);
    expect(created).toEqual([
      { id: 'store', readOnly: true },
      { id: 'lake', readOnly: true },
    ]);
    await graph.start();
    await graph.shutdown();

    expect(problems('exporters: { store: {} }\n', {}, registry)).toEqual([
      'service.pipelines: at least one pipeline is required (or, for a read-only node, service.storage naming the exporters to read from)',
    ]);
  });

  it('an exporter both written and read is not read-only; one only read is', () => {
    const created: Array<{ id: string; readOnly: boolean }> = [];
    const { config } = resolve(
      `receivers: { in: {} }
exporters: { store: {}, lake: {}, lake/old: {} }
service:
  storage: { events: [store, lake/old] }
  pipelines:
    events: { receivers: [in], exporters: [store, lake] }
`,
      {},
      fakeRegistry(created),
    );
    PipelineGraph.build(config!, { metrics: new Metrics() } as Host);
    expect(created).toEqual([
      { id: 'store', readOnly: false },
      { id: 'lake', readOnly: false },
      { id: 'lake/old', readOnly: true },
    ]);
  });
});

describe('connectors', () => {
  const BASE = `receivers: { http_api: {}, otlp: {} }
processors: { validation: {}, scrubbing: {}, grouping: {} }
exporters: { duckdb: {} }
connectors: { exceptions: {} }
service:
  pipelines:
`;

  it('the exceptions connector joins the traces pipeline to the events pipeline', () => {
    const { config, errors } = resolve(`${BASE}    traces: { receivers: [otlp], processors: [validation, scrubbing], exporters: [duckdb, exceptions] }
    events: { receivers: [http_api, exceptions], processors: [validation, scrubbing, grouping], exporters: [duckdb] }
`);
    expect(errors).toEqual([]);
    expect(config?.components.connector.get('exceptions')?.factory).toMatchObject({ kind: 'connector', from: 'traces', to: 'events' });
  });

  it('must be used at both ends', () => {
    expect(
      problems(`${BASE}    traces: { receivers: [otlp], processors: [validation, scrubbing], exporters: [duckdb, exceptions] }
    events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [duckdb] }
`),
    ).toEqual(['connectors.exceptions: connector "exceptions" is a receiver of no events pipeline: list it under service.pipelines.events.receivers']);
    expect(problems(`${BASE}    events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [duckdb] }\n`)).toEqual([
      'connectors.exceptions: connector "exceptions" is an exporter of no traces pipeline: list it under service.pipelines.traces.exporters',
      'connectors.exceptions: connector "exceptions" is a receiver of no events pipeline: list it under service.pipelines.events.receivers',
    ]);
  });

  it('is checked like any exporter and receiver: signal, and what it requires', () => {
    expect(
      problems(`${BASE}    traces: { receivers: [otlp, exceptions], exporters: [duckdb, exceptions] }
    events: { receivers: [http_api, exceptions], processors: [validation, scrubbing, grouping], exporters: [duckdb, exceptions] }
`),
    ).toEqual([
      'service.pipelines.traces.receivers[1]: connector "exceptions" turns traces into events: list it as an exporter of a traces pipeline and a receiver of an events pipeline, not in receivers of a traces pipeline',
      'service.pipelines.events.exporters[1]: connector "exceptions" turns traces into events: list it as an exporter of a traces pipeline and a receiver of an events pipeline, not in exporters of an events pipeline',
    ]);
    expect(
      problems(`${BASE}    traces: { receivers: [otlp], exporters: [duckdb, exceptions] }
    events: { receivers: [http_api, exceptions], processors: [validation, scrubbing, grouping], exporters: [duckdb] }
`),
    ).toEqual([
      'service.pipelines.traces.exporters[0]: exporter "duckdb" needs validated on traces: add the validation processor before it',
      'service.pipelines.traces.exporters[1]: connector "exceptions" needs validated on traces: add the validation processor before it',
      'service.pipelines.traces.processors: the pipeline stores traces (exporter "duckdb") without the scrubbing processor: list it right after validation, or configure it with enabled: false to store items unscrubbed',
    ]);
  });

  it('a pipeline that stores items needs the scrubbing processor, unless it is off on purpose or its items come relayed from Kafka', () => {
    const config = (processors: string, sections = '') => `receivers: { http_api: {}, kafka: { brokers: [127.0.0.1:9092] } }
processors: { validation: {}${sections} }
exporters: { duckdb: {}, kafka: { brokers: [127.0.0.1:9092] } }
service:
  pipelines:
    replays: { receivers: [http_api], processors: [${processors}], exporters: [kafka] }
    replays/worker: { receivers: [kafka], processors: [], exporters: [duckdb] }
`;
    expect(problems(config('validation'))).toEqual([
      'service.pipelines.replays.processors: the pipeline stores replays (exporter "kafka") without the scrubbing processor: list it right after validation (and add processors.scrubbing: {}), or configure it with enabled: false to store items unscrubbed',
    ]);
    expect(problems(config('validation, scrubbing', ', scrubbing: {}'))).toEqual([]);
    expect(problems(config('validation', ', scrubbing: { enabled: false }'))).toEqual([]);
    expect(problems(config('validation', ', scrubbing: { enabled: true }'))).toHaveLength(1);
    // The traces topic may hold spans a Collector wrote, never scrubbed: a worker's traces pipeline scrubs.
    expect(problems(`${config('validation, scrubbing', ', scrubbing: {}')}    traces/worker: { receivers: [kafka], exporters: [duckdb] }\n`)).toEqual([
      'service.pipelines.traces/worker.processors: the pipeline stores traces (exporter "duckdb") without the scrubbing processor: list it right after validation, or configure it with enabled: false to store items unscrubbed',
    ]);
  });

  it('otlp in an events pipeline: an error that points to the exceptions connector', () => {
    const errors = problems(`receivers: { http_api: {}, otlp: {} }
processors: { validation: {}, scrubbing: {}, grouping: {} }
exporters: { duckdb: {} }
service:
  pipelines:
    events: { receivers: [http_api, otlp], processors: [validation, scrubbing, grouping], exporters: [duckdb] }
    traces: { receivers: [otlp], processors: [validation, scrubbing], exporters: [duckdb] }
`);
    expect(errors).toEqual([
      'service.pipelines.events.receivers[1]: receiver "otlp" does not handle events (it handles traces); to turn its traces into events, configure the exceptions connector (connectors: { exceptions: {} }) and list it as an exporter of the traces pipeline and a receiver of this one',
    ]);
  });

  it('must not lead a pipeline back into itself, and needs an id of its own', () => {
    const loop: ComponentFactory = {
      kind: 'connector',
      type: 'loop',
      from: 'events',
      to: 'events',
      stability: 'development',
      description: 'events to events',
      configSchema: empty,
      create: () => ({ export: async () => undefined }),
    };
    const registry = fakeRegistry();
    registry.register(loop);
    registry.register({
      kind: 'receiver',
      type: 'loop',
      signals: ['events'],
      stability: { events: 'development' },
      description: 'a receiver type of the same name',
      configSchema: empty,
      create: () => ({}),
    });
    const yaml = (pipelines: string) => `receivers: { in: {} }
exporters: { sink: {} }
connectors: { loop: {} }
service:
  pipelines:
${pipelines}`;
    expect(
      problems(yaml('    events/a: { receivers: [in], exporters: [loop] }\n    events/b: { receivers: [loop], exporters: [sink] }\n'), {}, registry),
    ).toEqual([]);
    expect(problems(yaml('    events/a: { receivers: [in, loop], exporters: [loop] }\n'), {}, registry)).toEqual([
      'service.pipelines.events/a: its items come back to it through connectors: pipelines joined by connectors must not form a cycle',
    ]);
    expect(
      problems(
        yaml('    events/a: { receivers: [in], exporters: [loop] }\n    events/b: { receivers: [loop], exporters: [sink] }\n').replace(
          'receivers: { in: {} }',
          'receivers: { in: {}, loop: {} }',
        ),
        {},
        registry,
      ),
    ).toEqual(['connectors.loop: "loop" is also configured under receivers: a connector needs an id of its own']);
  });
});

describe('listeners', () => {
  const yaml = (receivers: string, traces: string) => `receivers: { ${receivers} }
processors: { validation: {}, scrubbing: {} }
exporters: { duckdb: {} }
service:
  pipelines:
    traces: { receivers: [${traces}], processors: [validation, scrubbing], exporters: [duckdb] }
`;

  it('two receivers, or one and the HTTP API, on one port cannot both start', () => {
    expect(problems(yaml('otlp: {}, otlp/second: {}', 'otlp, otlp/second'))).toEqual([
      'receivers.otlp/second: listens on 127.0.0.1:4318, as receiver "otlp" does: give it a port of its own',
    ]);
    expect(problems(yaml('otlp: { host: 0.0.0.0, port: 8080 }', 'otlp'))).toEqual([
      'receivers.otlp: listens on 0.0.0.0:8080, as the HTTP API (service.http) does: give it a port of its own',
    ]);
    expect(problems(yaml('otlp: {}, otlp/second: { port: 4319 }', 'otlp, otlp/second'))).toEqual([]);
    expect(problems(yaml('otlp: {}, otlp/second: {}', 'otlp, otlp/second'), { FAULTLINE_OTLP_PORT: '0' })).toEqual([]);
    // A receiver in no pipeline is not started.
    expect(problems(yaml('otlp: {}, otlp/spare: {}', 'otlp'))).toEqual([]);
  });
});
