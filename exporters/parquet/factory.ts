import type { ExporterFactory } from '../../src/engine/component.js';
import { parquetConfigSchema, type ParquetConfig } from './config.js';
import { ParquetExporter } from './exporter.js';

export const parquetFactory: ExporterFactory<ParquetConfig> = {
  kind: 'exporter',
  type: 'parquet',
  signals: ['events', 'traces'],
  description:
    'Writes events and spans to the Parquet lake (hive-partitioned by project and day, ZSTD): ack after a staging commit, crash-safe flushes, background compaction',
  configSchema: parquetConfigSchema,
  create: (settings) => new ParquetExporter(settings),
};
