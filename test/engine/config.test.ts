import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText, readConfigFile } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { closest, editDistance, unknownKeyMessage } from '../../src/config/suggest.js';
import { defaultRegistry } from '../../src/components.js';
import { packageRoot } from '../../src/paths.js';

const resolve = (yaml: string, env: Record<string, string> = {}) => resolveConfig(parseConfigText(yaml, 'x.yaml'), defaultRegistry(), env);

describe('configuration', () => {
  it('the embedded default is valid and runs an events, a traces and a replays pipeline', () => {
    const { config, errors } = resolveConfig(readConfigFile(undefined), defaultRegistry(), {});
    expect(errors).toEqual([]);
    expect(config?.pipelines).toEqual([
      expect.objectContaining({
        id: 'events',
        signal: 'events',
        receivers: ['http_api', 'exceptions', 'monitors'],
        processors: ['validation', 'scrubbing', 'symbolication', 'grouping', 'issues', 'alerting'],
        exporters: ['duckdb'],
      }),
      expect.objectContaining({
        id: 'traces',
        signal: 'traces',
        receivers: ['http_api', 'otlp'],
        processors: ['validation', 'scrubbing', 'alerting'],
        exporters: ['duckdb', 'exceptions'],
      }),
      expect.objectContaining({ id: 'replays', signal: 'replays', receivers: ['http_api'], processors: ['validation', 'scrubbing'], exporters: ['duckdb'] }),
    ]);
    expect(config?.settings.http.port).toBe(8080);
    expect(config?.pipelines.map((p) => [p.id, p.limits])).toEqual([
      ['events', { items: 2_000, bytes: 32 * 1024 * 1024 }],
      ['traces', { items: 40_000, bytes: 128 * 1024 * 1024 }],
      ['replays', { items: 1_000, bytes: 128 * 1024 * 1024 }],
    ]);
    expect(config?.settings.data_dir).toBe('./data');
    expect(config?.readSources).toEqual({ events: ['duckdb'], traces: ['duckdb'], replays: ['duckdb'] });
  });

  it('lists every error with its YAML path and line', () => {
    const { config, errors } = resolve(`receivers:
  http_api: { max_event_bytes: -1 }
  carrier_pigeon: {}
processors:
  validation: { max_frames: "many" }
exporters:
  duckdb: {}
service:
  http: { port: 99999 }
  colour: blue
  pipelines:
    events:
      receivers: [http_api]
      processors: [grouping]
      exporters: [duckdb, parquet]
    metrics:
      receivers: [http_api]
      exporters: [duckdb]
`);
    expect(config).toBeUndefined();
    const byPath = Object.fromEntries(errors.map((e) => [e.path, e]));
    expect(byPath['receivers.http_api.max_event_bytes']).toMatchObject({ line: 2 });
    expect(byPath['receivers.carrier_pigeon'].message).toMatch(/unknown receiver type "carrier_pigeon"/);
    expect(byPath['processors.validation.max_frames']).toMatchObject({ line: 5 });
    expect(byPath['service.http.port'].message).toMatch(/port/);
    expect(byPath['service.colour'].message).toMatch(/^unknown key "colour" \(known keys here: .*\bdata_dir\b/);
    expect(byPath['service.pipelines.events.processors[0]'].message).toMatch(/no processor "grouping"/);
    expect(byPath['service.pipelines.events.exporters[1]']).toMatchObject({ line: 15 });
    expect(byPath['service.pipelines.metrics'].message).toMatch(/signal one of events, traces, replays/);
  });

  it('expands ${env:NAME} and ${env:NAME:-default}, typed when the value is only the placeholder', () => {
    const { config, errors } = resolve(
      `receivers: { http_api: { max_event_bytes: "\${env:MAX_BYTES:-2048}" } }
processors: { validation: {}, scrubbing: {}, grouping: {} }
exporters: { duckdb: {} }
service:
  app_url: "https://\${env:HOST_NAME}/x"
  pipelines: { events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [duckdb] } }
`,
      { HOST_NAME: 'errors.example.com' },
    );
    expect(errors).toEqual([]);
    expect(config?.components.receiver.get('http_api')?.config).toMatchObject({ max_event_bytes: 2048 });
    expect(config?.settings.app_url).toBe('https://errors.example.com/x');
  });

  it('reports an unset variable without a default', () => {
    const { errors } = resolve(`exporters: { duckdb: {} }
receivers: { http_api: {} }
processors: { validation: {}, scrubbing: {}, grouping: {} }
service:
  app_url: \${env:NOPE}
  pipelines: { events: { receivers: [http_api], processors: [validation, scrubbing, grouping], exporters: [duckdb] } }
`);
    expect(errors).toEqual([expect.objectContaining({ path: 'service.app_url', message: expect.stringMatching(/NOPE is not set/) })]);
  });

  it('environment variables override the service section', () => {
    const { config } = resolveConfig(readConfigFile(undefined), defaultRegistry(), {
      FAULTLINE_DATA_DIR: '/var/lib/faultline',
      FAULTLINE_HTTP_PORT: '9090',
      FAULTLINE_OTLP_PORT: '14318',
      FAULTLINE_APP_URL: 'https://errors.example.com',
    });
    expect(config?.settings).toMatchObject({
      data_dir: '/var/lib/faultline',
      http: { port: 9090 },
      app_url: 'https://errors.example.com',
    });
    // FAULTLINE_OTLP_PORT is the otlp receiver's port now, not a key of the service section.
    expect(config?.components.receiver.get('otlp')?.config).toEqual({ host: '127.0.0.1', port: 14318 });
    expect(config?.settings).not.toHaveProperty('otlp.port', 14318);
    expect(config?.warnings).toEqual([]);
  });

  it("an environment variable does not beat a component's own key", () => {
    const { config } = resolve(
      `receivers: { otlp: { port: 4999 } }
exporters: { parquet: { path: /srv/lake } }
service:
  pipelines: { traces: { receivers: [otlp], processors: [validation, scrubbing], exporters: [parquet] } }
processors: { validation: {}, scrubbing: {} }
`,
      { FAULTLINE_OTLP_PORT: '14318', FAULTLINE_LAKE_DIR: '/elsewhere' },
    );
    expect(config?.components.receiver.get('otlp')?.config).toEqual({ host: '127.0.0.1', port: 4999 });
    expect(config?.components.exporter.get('parquet')?.config).toMatchObject({ path: '/srv/lake' });
  });
});

describe('component keys that left the service section', () => {
  const PIPELINES = `receivers: { http_api: { max_event_bytes: 2048 }, otlp: {} }
processors: { validation: {}, scrubbing: {}, grouping: {}, issues: {} }
exporters: { parquet: {} }
`;
  const pipelines = `  pipelines:
    events: { receivers: [http_api], processors: [validation, scrubbing, grouping, issues], exporters: [parquet] }
    traces: { receivers: [otlp], processors: [validation, scrubbing], exporters: [parquet] }
`;

  it('service.otlp, service.lake and service.limits.event_body_bytes are still read, with a warning naming the new key', () => {
    const { config, errors } = resolve(
      PIPELINES.replace('http_api: { max_event_bytes: 2048 }', 'http_api: {}') +
        `service:
  otlp: { host: 0.0.0.0, port: 4999 }
  lake: { path: /srv/old-lake }
  limits: { event_body_bytes: 4096 }
${pipelines}`,
    );
    expect(errors).toEqual([]);
    expect(config?.components.receiver.get('otlp')?.config).toEqual({ host: '0.0.0.0', port: 4999 });
    expect(config?.components.exporter.get('parquet')?.config).toMatchObject({ path: '/srv/old-lake' });
    expect(config?.components.receiver.get('http_api')?.config).toMatchObject({ max_event_bytes: 4096 });
    expect(config?.warnings.map((w) => `${w.path}: ${w.message}`)).toEqual([
      'service.limits.event_body_bytes: is deprecated and will be removed in the next release: set receivers.http_api.max_event_bytes instead',
      'service.otlp.host: is deprecated and will be removed in the next release: set receivers.otlp.host instead',
      'service.otlp.port: is deprecated and will be removed in the next release: set receivers.otlp.port instead',
      'service.lake.path: is deprecated and will be removed in the next release: set exporters.parquet.path instead',
    ]);
    expect(config?.warnings.every((w) => typeof w.line === 'number')).toBe(true);
  });

  it("the component's own key wins over the deprecated one, which then only warns if it is used", () => {
    const { config } = resolve(`${PIPELINES}service:
  limits: { event_body_bytes: 4096 }
${pipelines}`);
    expect(config?.components.receiver.get('http_api')?.config).toMatchObject({ max_event_bytes: 2048 });
    expect(config?.warnings).toEqual([]);
  });

  it('without them, the components use their own defaults', () => {
    const { config } = resolve(`${PIPELINES.replace('http_api: { max_event_bytes: 2048 }', 'http_api: {}')}service:
${pipelines}`);
    expect(config?.components.receiver.get('otlp')?.config).toEqual({ host: '127.0.0.1', port: 4318 });
    expect(config?.components.receiver.get('http_api')?.config).toMatchObject({ max_event_bytes: 1024 * 1024 });
    expect(config?.components.exporter.get('parquet')?.config).not.toHaveProperty('path');
    expect(config?.warnings).toEqual([]);
  });

  it('a deprecated key of the wrong type is still an error', () => {
    const { errors } = resolve(`${PIPELINES}service:
  otlp: { port: seventy }
${pipelines}`);
    expect(errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'service.otlp.port' })]));
  });

  it('a YAML syntax error is reported with its line', () => {
    const { errors } = resolve('receivers:\n  http_api: {\n');
    expect(errors[0]).toMatchObject({ line: expect.any(Number) });
  });
});

describe('config/examples', () => {
  it.each(readdirSync(join(packageRoot, 'config/examples')).filter((f) => f.endsWith('.yaml')))('%s is valid', (file) => {
    const { errors } = resolveConfig(readConfigFile(join(packageRoot, 'config/examples', file)), defaultRegistry(), {});
    expect(errors).toEqual([]);
  });
});

describe('closest known key', () => {
  it('counts a swap of neighbours as one edit, and suggests nothing far away', () => {
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('allow_private_destinatons', 'allow_private_destinations')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closest('prot', ['host', 'port'])).toBe('port');
    expect(closest('colour', ['data_dir', 'http', 'otlp'])).toBeUndefined();
    expect(closest('x'.repeat(10_000), ['x'])).toBeUndefined();
    expect(unknownKeyMessage('atempts', ['attempts', 'timeout_ms'])).toBe('unknown key "atempts"; did you mean "attempts"?');
  });
});
