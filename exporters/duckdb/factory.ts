import type { ExporterFactory } from '../../src/engine/component.js';
import { duckdbConfigSchema, type DuckdbConfig } from './config.js';
import { DuckdbExporter } from './exporter.js';

export const duckdbFactory: ExporterFactory<DuckdbConfig> = {
  kind: 'exporter',
  type: 'duckdb',
  signals: ['events', 'traces'],
  stability: { events: 'beta', traces: 'beta' },
  requires: { events: ['validated', 'issue_id'], traces: ['validated'] },
  // It owns the tables of the one database file (and the DocStore next to it).
  singleton: true,
  reads: ['events', 'traces'],
  metrics: ['faultline_exporter_sent_items_total', 'faultline_exporter_failed_items_total'],
  description: 'Stores events (documents in the LMDB DocStore, rows and issues in DuckDB) and spans in the service DuckDB file',
  configSchema: duckdbConfigSchema,
  create: (settings) => new DuckdbExporter(settings),
};
