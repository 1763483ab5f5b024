import type { ExporterFactory } from '../../src/engine/component.js';
import { duckdbConfigSchema, type DuckdbConfig } from './config.js';
import { DuckdbExporter } from './exporter.js';

export const duckdbFactory: ExporterFactory<DuckdbConfig> = {
  kind: 'exporter',
  type: 'duckdb',
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'beta', traces: 'beta', replays: 'alpha' },
  requires: { events: ['validated', 'issue_id'], traces: ['validated'], replays: ['validated'] },
  // It owns the tables of the one database file (and the DocStore next to it).
  singleton: true,
  reads: ['events', 'traces', 'replays'],
  inBothAlias: true,
  persists: true,
  metrics: ['faultline_exporter_sent_items_total', 'faultline_exporter_failed_items_total'],
  extensions: ['duckdb', 'quarantine', 'issues'],
  description:
    'Stores events (documents in the LMDB DocStore, rows and issues in DuckDB) spans and replay segments (metadata rows; events as gzip blobs under <data_dir>/replays) in the service DuckDB file',
  configSchema: duckdbConfigSchema,
  create: (settings) => new DuckdbExporter(settings),
};
