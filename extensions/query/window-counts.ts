// The counts the alerting processor rebuilds its rule windows from after a restart: stored events
// that meet a rule's conditions, and span durations of a service, per bucket of their time of
// receipt (received_at: what the live windows count by), over the merged read sources.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import { eventConditions, type EventConditions } from './filter.js';
import type { MergedSource } from './read-sources.js';

export interface WindowScope {
  dataset: Dataset;
  projectId: string;
  /** Received at or after `from` and before `to` (epoch ms). */
  from: number;
  to: number;
  /** The bucket size (ms): each count is at its bucket's start. */
  bucketMs: number;
}

export class WindowCounts {
  constructor(
    private readonly db: Database,
    private readonly eventRows: MergedSource,
    private readonly spanRows: MergedSource,
  ) {}

  /** Events meeting `conditions` per bucket; none without an events source. */
  async events(scope: WindowScope, conditions: EventConditions): Promise<Array<{ at: number; n: number }>> {
    const rows = await this.read(this.eventRows, scope, (where, params) => {
      where.push(...eventConditions(conditions, params));
      return 'count(*) AS n';
    });
    return rows.map(([at, n]) => ({ at: Number(at), n: Number(n) }));
  }

  /**
   * Spans of `service` (and `operation`, if given) per bucket and duration bin: bin 0 for at most
   * one microsecond, else ceil(ln(µs) / logStep), the alerting processor's log-scale histogram.
   */
  async spanDurations(
    scope: WindowScope,
    match: { service: string; operation?: string },
    logStep: number,
  ): Promise<Array<{ at: number; bin: number; n: number }>> {
    const rows = await this.read(this.spanRows, scope, (where, params) => {
      where.push('service_name = $service');
      params.service = match.service;
      if (match.operation !== undefined) {
        where.push('name = $operation');
        params.operation = match.operation;
      }
      params.log_step = logStep;
      const micros = '((end_ns - start_ns) / 1000.0)';
      return `CASE WHEN ${micros} <= 1 THEN 0 ELSE CAST(ceil(ln(${micros}) / $log_step::DOUBLE) AS INTEGER) END AS bin, count(*) AS n`;
    });
    return rows.map(([at, bin, n]) => ({ at: Number(at), bin: Number(bin), n: Number(n) }));
  }

  /** `SELECT at, <measures> … GROUP BY ALL` over the source's rows received in the scope. */
  private async read(
    source: MergedSource,
    scope: WindowScope,
    measures: (where: string[], params: Record<string, DuckDBValue>) => string,
  ): Promise<DuckDBValue[][]> {
    if (source.empty) return [];
    await source.settled();
    const params: Record<string, DuckDBValue> = {
      dataset: scope.dataset,
      project: scope.projectId,
      from: BigInt(scope.from) * 1000n,
      to: BigInt(scope.to) * 1000n,
      bucket: BigInt(scope.bucketMs),
    };
    const where = ['dataset = $dataset', 'project_id = $project', 'received_at >= make_timestamp($from::BIGINT)', 'received_at < make_timestamp($to::BIGINT)'];
    const select = measures(where, params);
    const result = await source.consistent(() =>
      this.db
        .reader()
        .runAndReadAll(
          `SELECT (epoch_ms(received_at) // $bucket) * $bucket AS at, ${select} FROM ${source.relation([scope.projectId])} WHERE ${where.join(' AND ')} GROUP BY ALL`,
          params,
        ),
    );
    return result.getRows();
  }
}
