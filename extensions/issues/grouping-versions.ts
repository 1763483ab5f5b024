// Which grouping algorithm each project is on (catalog table grouping_versions). When the
// algorithm improves, a project moves to the new version at once — its new issues are formed the
// new way — and for a transition period its events also compute the previous version's hash, so
// that an event of an issue the previous version opened still lands in it (the issues processor
// then records an alias, see IssueStates.resolve). The table is small: it is read whole at start.
import type { Database } from '../duckdb/database.js';

export interface ProjectGrouping {
  version: number;
  fallbackVersion?: number;
  /** Epoch milliseconds. */
  fallbackUntil?: number;
}

export class GroupingVersions {
  private readonly projects = new Map<string, ProjectGrouping>();
  private upgraded?: Promise<void>;

  constructor(private readonly db: Database) {}

  /**
   * Moves every project on an older version to `current`, falling back to the version it was on
   * for `fallbackDays`; records `current` for projects that have no version yet. Idempotent, and
   * done once per process however many grouping processors ask.
   */
  upgrade(current: number, fallbackDays: number, now = Date.now()): Promise<void> {
    this.upgraded ??= this.upgradeNow(current, fallbackDays, now);
    return this.upgraded;
  }

  private async upgradeNow(current: number, fallbackDays: number, now: number): Promise<void> {
    const micros = BigInt(now) * 1000n;
    const until = micros + BigInt(fallbackDays) * 86_400_000_000n;
    await this.db.write(async (c) => {
      await c.run(
        `UPDATE grouping_versions SET fallback_version = version, fallback_until = make_timestamp($until::BIGINT), version = $current,
           changed_at = make_timestamp($now::BIGINT) WHERE version < $current`,
        { current, until, now: micros },
      );
      await c.run(
        `INSERT INTO grouping_versions SELECT id, $current, NULL, NULL, make_timestamp($now::BIGINT) FROM projects
           WHERE id NOT IN (SELECT project_id FROM grouping_versions)`,
        { current, now: micros },
      );
    });
    const rows = await this.db.reader().runAndReadAll('SELECT project_id, version, fallback_version, epoch_ms(fallback_until) FROM grouping_versions');
    for (const [projectId, version, fallbackVersion, fallbackUntil] of rows.getRows()) {
      this.projects.set(String(projectId), {
        version: Number(version),
        fallbackVersion: fallbackVersion === null ? undefined : Number(fallbackVersion),
        fallbackUntil: fallbackUntil === null ? undefined : Number(fallbackUntil),
      });
    }
  }

  /** The version a project's events fall back to at `now`, if it is in a transition. */
  fallbackFor(projectId: string, now: number): number | undefined {
    const grouping = this.projects.get(projectId);
    if (grouping?.fallbackVersion === undefined || grouping.fallbackUntil === undefined) return undefined;
    return now < grouping.fallbackUntil ? grouping.fallbackVersion : undefined;
  }

  /** What the catalog said at start (a project created since is on the current version). */
  of(projectId: string): ProjectGrouping | undefined {
    return this.projects.get(projectId);
  }
}
