// The role configurations of config/examples (ingest, worker, query, single) as the Kafka tests run
// them: the example files themselves, with test settings for the librdkafka mock (no idempotent
// producer, short group timeouts, short send timeout) and quick lake flushes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { packageRoot } from '../../src/paths.js';

export type Role = 'ingest' | 'worker' | 'query' | 'single';

export interface RoleOptions {
  /** Pipeline budget (items) of the worker's pipelines. */
  maxInFlightItems?: number;
  flushIntervalMs?: number;
  /** The kafka receiver's key for otlp_proto messages without tenant headers. */
  key?: string;
}

/** A role's YAML: the example, tuned for tests. */
export function roleYaml(role: Role, options: RoleOptions = {}): string {
  const config = parse(readFileSync(join(packageRoot, 'config/examples', `${role}.yaml`), 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
  const exporters = config.exporters ?? {};
  const receivers = config.receivers ?? {};
  if (exporters.kafka) Object.assign(exporters.kafka, { idempotent: false, send_timeout_ms: 2000, retry_after_s: 1, request_timeout_ms: 1500 });
  if (receivers.kafka)
    Object.assign(receivers.kafka, { session_timeout_ms: 3000, rebalance_timeout_ms: 3000, heartbeat_interval_ms: 300, retry_backoff_ms: 100 });
  if (receivers.kafka && options.key) receivers.kafka.key = options.key;
  if (exporters.parquet && role !== 'query')
    Object.assign(exporters.parquet, { flush: { interval_ms: options.flushIntervalMs ?? 300 }, compaction: { interval_ms: 1000, min_rows: 100000 } });
  if (options.maxInFlightItems) {
    for (const [id, pipeline] of Object.entries(config.service.pipelines as Record<string, Record<string, unknown>>))
      if ((pipeline.receivers as string[]).includes('kafka') && id.startsWith('events')) pipeline.max_in_flight = { items: options.maxInFlightItems };
  }
  return stringify(config);
}

/** The environment the examples read. */
export function roleEnv(brokers: string, lake: string, workerId = 'w1'): Record<string, string> {
  return { FAULTLINE_KAFKA_BROKERS: brokers, FAULTLINE_LAKE_DIR: lake, FAULTLINE_WORKER_ID: workerId };
}
