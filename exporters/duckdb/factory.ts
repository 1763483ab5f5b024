import type { ExporterFactory } from '../../src/engine/component.js';
import { duckdbConfigSchema, type DuckdbConfig } from './config.js';
import { DuckdbExporter } from './exporter.js';

export const duckdbFactory: ExporterFactory<DuckdbConfig> = {
  kind: 'exporter',
  type: 'duckdb',
  signals: ['events', 'traces'],
  description: 'Stores events (documents in the LMDB DocStore, rows and issues in DuckDB) and spans in the service DuckDB file',
  configSchema: duckdbConfigSchema,
  create: (settings) => new DuckdbExporter(settings),
};
