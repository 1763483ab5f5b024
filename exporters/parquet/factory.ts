import type { ExporterFactory } from '../../src/engine/component.js';
import { parquetConfigSchema, type ParquetConfig } from './config.js';
import { ParquetExporter } from './exporter.js';
import { lakePath } from './lake.js';

export const parquetFactory: ExporterFactory<ParquetConfig> = {
  kind: 'exporter',
  type: 'parquet',
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'alpha', traces: 'alpha', replays: 'alpha' },
  requires: { events: ['validated', 'issue_id'], traces: ['validated'], replays: ['validated'] },
  reads: ['events', 'traces', 'replays'],
  inBothAlias: true,
  persists: true,
  metrics: ['faultline_exporter_sent_items_total', 'faultline_exporter_failed_items_total'],
  extensions: ['duckdb'],
  description:
    'Writes events, spans and replay segments to the Parquet lake (hive-partitioned by project and day, ZSTD; replay events as gzip blobs under the lake): ack after a staging commit, crash-safe flushes, background compaction',
  configSchema: parquetConfigSchema,
  // Two instances flushing and compacting one lake would clear each other's temporary files.
  owns: (config, settings) => `the lake ${lakePath(config, settings)}`,
  defaults: { path: { env: 'FAULTLINE_LAKE_DIR', deprecatedServiceKey: 'lake.path' } },
  create: (settings) => new ParquetExporter(settings),
};
