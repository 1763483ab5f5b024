import type { ExporterFactory } from '../../src/engine/component.js';
import { duckdbConfigSchema, type DuckdbConfig } from './config.js';
import { DuckdbExporter } from './exporter.js';

export const duckdbFactory: ExporterFactory<DuckdbConfig> = {
  kind: 'exporter',
  type: 'duckdb',
  signals: ['events', 'traces'],
  description: 'Stores events (with their issues) and spans in the service DuckDB file (Appender, group commit, ack after commit)',
  configSchema: duckdbConfigSchema,
  create: (settings) => new DuckdbExporter(settings),
};
