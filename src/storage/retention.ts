// Retention: a periodic job asking every storing exporter (and the artifact store) to delete what
// is older than its retention (service.retention.<signal>_days, artifacts_days). Expiry is by
// whole UTC days, the lake's partition unit: with 30 days kept, on 2026-11-22 everything dated
// before 2026-10-23 goes, so a lake can drop whole day partitions instead of rewriting files, and
// every store agrees.
import type { Logger } from 'pino';
import type { ExpiryResult } from '../engine/component.js';
import { SIGNALS, type Signal } from '../engine/item.js';
import { firstKeptDay } from '../records/retention-window.js';

/** What has a retention: each signal, uploaded artifacts (source maps and symbol files), and the alerts' history. */
export type Retained = Signal | 'artifacts' | 'alerts';
const RETAINED: readonly Retained[] = [...SIGNALS, 'artifacts', 'alerts'];

/** Something the job asks to expire: a storing exporter, the artifact store. */
export interface RetentionTarget {
  id: string;
  /** Deletes what is dated before the first kept day (`YYYY-MM-DD`, UTC) of each kind it stores. */
  expire(firstKept: Partial<Record<Retained, string>>): Promise<ExpiryResult>;
}

export interface RetentionSettings {
  /** `<kind>_days` for each signal and artifacts (events_days, traces_days, artifacts_days, …). */
  [days: `${string}_days`]: number;
  check_interval_ms: number;
}

export interface RetentionResult {
  cutoff: Partial<Record<Retained, string>>;
  deletedRows: Record<string, number>;
  deletedPartitions: string[];
}

/** The first kept day of each kind that has a retention setting (0: kept forever). */
export function cutoffs(settings: RetentionSettings, now = Date.now()): Partial<Record<Retained, string>> {
  const out: Partial<Record<Retained, string>> = {};
  for (const kind of RETAINED) {
    const days = settings[`${kind}_days`];
    if (typeof days === 'number' && days > 0) out[kind] = firstKeptDay(days, now);
  }
  return out;
}

export class RetentionJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly targets: readonly RetentionTarget[],
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

  /** Runs once; `override` replaces settings for this run only (operations and tests). */
  async run(now = Date.now(), override: Record<`${string}_days`, number> = {}): Promise<RetentionResult> {
    const cutoff = cutoffs({ ...this.settings, ...override }, now);
    const result: RetentionResult = { cutoff, deletedRows: {}, deletedPartitions: [] };
    for (const { id, expire } of this.targets) {
      const expired = await expire(cutoff);
      for (const [table, rows] of Object.entries(expired.deletedRows)) result.deletedRows[`${id}:${table}`] = rows;
      result.deletedPartitions.push(...expired.deletedPartitions);
    }
    if (result.deletedPartitions.length || Object.values(result.deletedRows).some((n) => n > 0))
      this.logger.info({ cutoff, deletedRows: result.deletedRows, deletedPartitions: result.deletedPartitions.length }, 'retention deleted expired data');
    return result;
  }
}
