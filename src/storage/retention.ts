// Retention: a periodic job deleting what is older than each signal's retention, in the DuckDB
// tables, the lake's staging tables and the lake itself. Expiry is by whole UTC days, the lake's
// partition unit: with 30 days kept, on 2026-11-22 everything dated before 2026-10-23 goes, so the
// lake can drop whole date partitions instead of rewriting files, and DuckDB and the lake agree.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Database } from './database.js';
import { spanKey, type DocKey, type DocKind } from './docs.js';
import { listDates, partitionDir, type LakeSignal } from './lake.js';

const DAY_MS = 24 * 3600 * 1000;

export interface RetentionSettings {
  events_days: number;
  traces_days: number;
  check_interval_ms: number;
}

export interface RetentionResult {
  cutoff: Record<LakeSignal, string>;
  deletedRows: Record<string, number>;
  deletedPartitions: string[];
}

/** The first day that is kept: today (UTC) minus `days` - 1. */
export function firstKeptDay(days: number, now = Date.now()): string {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return new Date(today - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

export class RetentionJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly db: Database,
    private readonly lakePath: string,
    private readonly settings: RetentionSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const tick = () => {
      this.running = this.run().catch((error: unknown) => this.logger.error({ err: error }, 'retention failed'));
    };
    tick();
    this.timer = setInterval(tick, this.settings.check_interval_ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async run(now = Date.now()): Promise<RetentionResult> {
    const cutoff = { events: firstKeptDay(this.settings.events_days, now), traces: firstKeptDay(this.settings.traces_days, now) };
    const eventsBefore = BigInt(Date.parse(cutoff.events)) * 1000n;
    const spansBefore = BigInt(Date.parse(cutoff.traces)) * 1_000_000n;
    await this.db.settled(); // acknowledged items still on their way to DuckDB expire too
    const expired: Record<DocKind, DocKey[]> = { events: [], spans: [] };
    const deletedRows = await this.db.write(async (c) => {
      const counts: Record<string, number> = {};
      const remove = async (name: string, sql: string, value: bigint) => {
        counts[name] = (await c.run(sql, [value])).rowsChanged;
      };
      const events = await c.runAndReadAll('DELETE FROM events WHERE timestamp < make_timestamp(?::BIGINT) RETURNING dataset, project_id, id', [eventsBefore]);
      expired.events = events.getRows().map((key) => key.map(String));
      counts.events = expired.events.length;
      await remove('issues', 'DELETE FROM issues WHERE last_seen < make_timestamp(?::BIGINT)', eventsBefore);
      await remove('lake_staging_events', 'DELETE FROM lake_staging_events WHERE timestamp < make_timestamp(?::BIGINT) AND batch_id IS NULL', eventsBefore);
      const spans = await c.runAndReadAll('DELETE FROM spans WHERE start_ns < ? RETURNING dataset, project_id, start_ns, trace_id, span_id', [spansBefore]);
      expired.spans = spans.getRows().map(([d, p, start, t, s]) => spanKey(String(d), String(p), BigInt(start as bigint), String(t), String(s)));
      counts.spans = expired.spans.length;
      await remove('lake_staging_spans', 'DELETE FROM lake_staging_spans WHERE start_ns < ? AND batch_id IS NULL', spansBefore);
      return counts;
    });
    // After the commit: a crash in between leaves documents without rows, never the reverse.
    await this.db.docs.remove('events', expired.events);
    await this.db.docs.remove('spans', expired.spans);
    const deletedPartitions = [...this.dropPartitions('events', cutoff.events), ...this.dropPartitions('traces', cutoff.traces)];
    if (deletedPartitions.length || Object.values(deletedRows).some((n) => n > 0))
      this.logger.info({ cutoff, deletedRows, deletedPartitions: deletedPartitions.length }, 'retention deleted expired data');
    return { cutoff, deletedRows, deletedPartitions };
  }

  private dropPartitions(signal: LakeSignal, firstKept: string): string[] {
    const root = join(this.lakePath, signal);
    if (!existsSync(root)) return [];
    const dropped: string[] = [];
    for (const entry of readdirSync(root).filter((name) => name.startsWith('project_id='))) {
      const project = entry.slice('project_id='.length);
      for (const date of listDates(this.lakePath, signal, project).filter((d) => d < firstKept)) {
        const dir = partitionDir(this.lakePath, signal, project, date);
        rmSync(dir, { recursive: true, force: true });
        dropped.push(dir);
      }
    }
    return dropped;
  }
}
