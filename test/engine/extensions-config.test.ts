// `extensions:` and `service.extensions`: validate refuses a config where a component's declared
// extension, or an extension's dependency, is not listed, naming both; without the list, all run.
import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/components.js';
import { parseConfigText } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';

const PIPELINES = `
receivers: { http_api: {} }
processors: { validation: {}, scrubbing: {}, grouping: {}, issues: {} }
exporters: { duckdb: {} }
`;
const pipeline = `
  pipelines:
    events: { receivers: [http_api], processors: [validation, scrubbing, grouping, issues], exporters: [duckdb] }`;

function resolve(yaml: string) {
  return resolveConfig(parseConfigText(yaml, 't.yaml'), defaultRegistry(), { FAULTLINE_DATA_DIR: '/tmp/unused' });
}

describe('service.extensions', () => {
  it('absent: every registered extension runs, dependencies first', () => {
    const { config, errors } = resolve(`${PIPELINES}service:${pipeline}`);
    expect(errors).toEqual([]);
    expect(config?.extensions.map((e) => e.id.text)).toEqual([
      'duckdb',
      'catalog',
      'issues',
      'quarantine',
      'artifacts',
      'alerts',
      'control_plane',
      'query',
      'sentry_ingest',
    ]);
  });

  it('refuses a component whose extension is not listed, naming both', () => {
    const { errors } = resolve(`${PIPELINES}service:\n  extensions: [duckdb, catalog, quarantine, sentry_ingest]${pipeline}`);
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'processors.grouping: processor "grouping" needs extension "issues", which service.extensions does not list',
      'processors.issues: processor "issues" needs extension "issues", which service.extensions does not list',
      'exporters.duckdb: exporter "duckdb" needs extension "issues", which service.extensions does not list',
    ]);
  });

  it('refuses an extension whose dependency is not listed, and orders the others by their dependencies', () => {
    const { errors } = resolve(`${PIPELINES}service:\n  extensions: [issues, catalog, quarantine, sentry_ingest]${pipeline}`);
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toContain(
      'service.extensions: extension "issues" needs extension "duckdb", which service.extensions does not list',
    );
    const ordered = resolve(`${PIPELINES}service:\n  extensions: [issues, quarantine, catalog, duckdb, sentry_ingest]${pipeline}`);
    expect(ordered.errors).toEqual([]);
    expect(ordered.config?.extensions.map((e) => e.id.text)).toEqual(['duckdb', 'catalog', 'issues', 'quarantine', 'sentry_ingest']);
  });

  it('refuses unknown types, unlisted sections and bad extension config', () => {
    const { errors } = resolve(
      `${PIPELINES}extensions:\n  catalog: { nope: 1 }\n  alerts: {}\nservice:\n  extensions: [duckdb, catalog, issues, quarantine, vault]${pipeline}`,
    );
    const messages = errors.map((e) => `${e.path}: ${e.message}`);
    expect(messages.some((m) => m.startsWith('service.extensions[4]: unknown extension type "vault"'))).toBe(true);
    expect(messages).toContain('extensions.alerts: extension "alerts" is configured but not listed in service.extensions');
    expect(messages.some((m) => m.startsWith('extensions.catalog'))).toBe(true);
  });
});
