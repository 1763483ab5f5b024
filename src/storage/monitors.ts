// Monitors, their check-ins and uptime checks, in tables of the service's DuckDB file that the
// monitors receiver owns (migrations under the owner `monitors`). Monitors are few and read on every
// scheduler tick, so they are also held in memory; check-ins and checks are read with SQL.
import { randomUUID } from 'node:crypto';
import type { Dataset } from '../engine/item.js';
import type { Database } from '../../extensions/duckdb/database.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { migrate, type Migration } from '../../extensions/duckdb/migrate.js';
import { rows } from '../../extensions/duckdb/rows.js';
import type { Schedule } from '../records/schedule.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { deletedAt, markDeleted, type ComponentChange } from '../../extensions/duckdb/journal.js';

export type MonitorType = 'cron' | 'uptime';
export type CronStatus = 'new' | 'ok' | 'error' | 'missed' | 'timeout';
export type UptimeStatus = 'new' | 'up' | 'down';
export type CheckinStatus = 'in_progress' | 'ok' | 'error' | 'missed' | 'timeout';

export interface CronSettings {
  schedule: Schedule;
  checkin_margin_minutes: number;
  max_runtime_minutes: number;
  timezone: string;
}

export interface UptimeSettings {
  url: string;
  method: 'GET' | 'HEAD' | 'POST';
  interval_seconds: number;
  timeout_ms: number;
  expected_status: '2xx' | number[];
  headers: Record<string, string>;
  body: string | null;
  failure_threshold: number;
}

export interface Monitor {
  dataset: Dataset;
  org_id: string;
  project_id: string;
  slug: string;
  name: string;
  type: MonitorType;
  environment: string | null;
  cron: CronSettings | null;
  uptime: UptimeSettings | null;
  paused: boolean;
  status: CronStatus | UptimeStatus;
  /** Epoch ms. */
  last_checkin_at: number | null;
  /** Cron: the run expected next. Uptime: the next check. */
  next_expected_at: number | null;
  consecutive_failures: number;
  /** The issue its failures opened (set by the first failure event). */
  issue_id: string | null;
  created_at: number;
  updated_at: number;
  /** When its definition (not its state) last changed: the version the control plane compares. */
  defined_at?: number | null;
}

/** What the control plane carries of a monitor: who it is and how it is configured, not its state. */
export type MonitorDefinition = Pick<
  Monitor,
  'dataset' | 'org_id' | 'project_id' | 'slug' | 'name' | 'type' | 'environment' | 'cron' | 'uptime' | 'paused' | 'created_at'
>;

/** The control plane's record type of monitor definitions (keys `monitor:<dataset>/<project>/<slug>`). */
export const MONITOR_CHANGE = 'monitor';

/** What the deciding node says of a monitor's state after a change (the monitors topic carries it to every node). */
export type MonitorState = Pick<Monitor, 'status' | 'last_checkin_at' | 'next_expected_at' | 'consecutive_failures' | 'issue_id'>;

export interface Checkin {
  id: string;
  status: CheckinStatus;
  duration_ms: number | null;
  environment: string | null;
  /** For missed and timed-out runs: the time the run was expected (missed) or started (timeout). */
  expected_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface UptimeCheck {
  at: number;
  ok: boolean;
  status_code: number | null;
  latency_ms: number | null;
  /** `timeout`, `refused`, `dns`, `tls`, `unreachable`, `http_<status>`, or null when ok. */
  error: string | null;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'monitors, check-ins and uptime checks',
    sql: `
      CREATE TABLE monitors (
        dataset VARCHAR NOT NULL, org_id VARCHAR NOT NULL, project_id VARCHAR NOT NULL, slug VARCHAR NOT NULL,
        name VARCHAR NOT NULL, type VARCHAR NOT NULL, environment VARCHAR, cron JSON, uptime JSON,
        paused BOOLEAN NOT NULL, status VARCHAR NOT NULL, last_checkin_at BIGINT, next_expected_at BIGINT,
        consecutive_failures INTEGER NOT NULL, issue_id VARCHAR, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
        PRIMARY KEY (dataset, project_id, slug)
      );
      CREATE TABLE monitor_checkins (
        id VARCHAR NOT NULL, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, slug VARCHAR NOT NULL,
        status VARCHAR NOT NULL, duration_ms BIGINT, environment VARCHAR, expected_at BIGINT,
        created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
        PRIMARY KEY (dataset, project_id, slug, id)
      );
      CREATE TABLE uptime_checks (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, slug VARCHAR NOT NULL, checked_at BIGINT NOT NULL,
        ok BOOLEAN NOT NULL, status_code INTEGER, latency_ms INTEGER, error VARCHAR
      );
    `,
  },
  { version: 2, name: 'the version of a monitor definition, for the control plane', sql: 'ALTER TABLE monitors ADD COLUMN defined_at BIGINT;' },
];

const key = (dataset: Dataset, projectId: string, slug: string) => `${dataset}\u0000${projectId}\u0000${slug}`;

/** A monitor's id across nodes: its key on the monitors topic and, after `monitor:`, on the control plane. */
export const monitorId = (m: { dataset: Dataset; project_id: string; slug: string }) => `${m.dataset}/${m.project_id}/${m.slug}`;

export class MonitorStore {
  private readonly monitors = new Map<string, Monitor>();

  private constructor(private readonly db: Database) {}

  static async open(db: Database): Promise<MonitorStore> {
    await migrate(db, 'monitors', MIGRATIONS, undefined);
    const store = new MonitorStore(db);
    await store.load();
    return store;
  }

  /**
   * The monitors as stored, for a reader in the same process that does not run them (the web app's
   * pages); undefined when no monitors receiver ever made its tables.
   */
  static async readOnly(db: Database): Promise<MonitorStore | undefined> {
    const tables = await db.reader().runAndReadAll(`SELECT count(*) FROM information_schema.tables WHERE table_name = 'monitors'`);
    if (Number(tables.getRows()[0]?.[0] ?? 0) === 0) return undefined;
    const store = new MonitorStore(db);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    const result = await this.db.reader().runAndReadAll('SELECT * FROM monitors');
    this.monitors.clear();
    for (const row of rows<Record<string, unknown>>(result)) {
      const monitor = {
        ...row,
        cron: row.cron ? JSON.parse(String(row.cron)) : null,
        uptime: row.uptime ? JSON.parse(String(row.uptime)) : null,
      } as Monitor;
      this.monitors.set(key(monitor.dataset, monitor.project_id, monitor.slug), monitor);
    }
  }

  get(dataset: Dataset, projectId: string, slug: string): Monitor | undefined {
    return this.monitors.get(key(dataset, projectId, slug));
  }

  all(): Monitor[] {
    return [...this.monitors.values()];
  }

  count(dataset: Dataset, projectId: string): number {
    let n = 0;
    for (const monitor of this.monitors.values()) if (monitor.dataset === dataset && monitor.project_id === projectId) n++;
    return n;
  }

  /** Newest first by creation, then slug; `cursor` from the previous page. */
  list(filter: { dataset: Dataset; projectId: string; type?: MonitorType; status?: string }, limit: number, cursor?: string) {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const matching = this.all()
      .filter((m) => m.dataset === filter.dataset && m.project_id === filter.projectId)
      .filter((m) => !filter.type || m.type === filter.type)
      .filter((m) => !filter.status || (filter.status === 'paused' ? m.paused : !m.paused && m.status === filter.status))
      .sort((a, b) => b.created_at - a.created_at || a.slug.localeCompare(b.slug))
      .filter((m) => !after || m.created_at < Number(after.micros) || (m.created_at === Number(after.micros) && m.slug > after.id));
    const page = matching.slice(0, limit);
    const last = page.at(-1);
    return { monitors: page, nextCursor: matching.length > limit && last ? encodeCursor({ micros: BigInt(last.created_at), id: last.slug }) : null };
  }

  /** Inserts or replaces the monitor (with an uptime check that led to this state, in the same transaction). */
  async save(monitor: Monitor, check?: UptimeCheck): Promise<void> {
    await this.db.write(async (c) => {
      if (check) await c.run(`INSERT INTO uptime_checks VALUES ($dataset, $project, $slug, $at, $ok, $status, $latency, $error)`, checkParams(monitor, check));
      await writeMonitor(c, monitor);
    });
    this.monitors.set(key(monitor.dataset, monitor.project_id, monitor.slug), monitor);
  }

  /** Saves a monitor whose definition changed (created, changed, paused): the control plane, when there is one, replicates it. */
  async define(monitor: Monitor): Promise<void> {
    const defined = { ...monitor, defined_at: monitor.updated_at };
    await this.db.write(async (c) => {
      await writeMonitor(c, defined);
      await this.db.recordChange(c, definitionChange(defined, defined.updated_at));
    });
    this.monitors.set(key(monitor.dataset, monitor.project_id, monitor.slug), defined);
  }

  /**
   * A definition from the control plane: applied when newer than this node's and than a deletion of
   * the monitor; `merge` makes the monitor of it (keeping this node's state of an existing one).
   */
  async applyDefinition(change: ComponentChange, merge: (local: Monitor | undefined, definition: MonitorDefinition) => Monitor): Promise<void> {
    const definition = change.body as MonitorDefinition | undefined;
    const [dataset, projectId, ...slug] = change.id.split('/');
    const local = this.get(dataset as Dataset, projectId ?? '', slug.join('/'));
    if (local && (local.defined_at ?? local.created_at) >= change.at) return;
    let applied: Monitor | undefined;
    await this.db.write(async (c) => {
      const deleted = await deletedAt(c, `${MONITOR_CHANGE}:${change.id}`);
      if (deleted !== undefined && deleted >= change.at) return;
      if (!definition) {
        if (local) await deleteRows(c, local);
        await markDeleted(c, `${MONITOR_CHANGE}:${change.id}`, change.at);
        return;
      }
      applied = { ...merge(local, definition), defined_at: change.at };
      await writeMonitor(c, applied);
    });
    if (applied) this.monitors.set(key(applied.dataset, applied.project_id, applied.slug), applied);
    else if (!definition && local) this.monitors.delete(key(local.dataset, local.project_id, local.slug));
  }

  /** The deciding node's account of a change: the monitor's state and the check-ins and checks it wrote (idempotent). */
  async applyState(monitor: Monitor, state: MonitorState, checkins: Checkin[], checks: UptimeCheck[]): Promise<void> {
    const next: Monitor = { ...monitor, ...state };
    await this.db.write(async (c) => {
      for (const checkin of checkins) await writeCheckin(c, monitor, checkin);
      for (const check of checks)
        await c.run(
          `INSERT INTO uptime_checks SELECT $dataset, $project, $slug, $at, $ok, $status, $latency, $error
           WHERE NOT EXISTS (SELECT 1 FROM uptime_checks WHERE dataset = $dataset AND project_id = $project AND slug = $slug AND checked_at = $at)`,
          checkParams(monitor, check),
        );
      await writeMonitor(c, next);
    });
    this.monitors.set(key(monitor.dataset, monitor.project_id, monitor.slug), next);
  }

  /**
   * Records an uptime check whose monitor changed only in when it checked and checks next: those
   * are kept in memory (after a restart a monitor is simply checked at once), sparing a row rewrite.
   */
  async addRoutineCheck(monitor: Monitor, check: UptimeCheck): Promise<void> {
    await this.addCheck(monitor, check);
    this.monitors.set(key(monitor.dataset, monitor.project_id, monitor.slug), monitor);
  }

  /** Deletes the monitor with its check-ins and checks; the control plane, when there is one, deletes it everywhere. */
  async delete(monitor: Monitor, at = Date.now()): Promise<void> {
    await this.db.write(async (c) => {
      await deleteRows(c, monitor);
      await markDeleted(c, `${MONITOR_CHANGE}:${monitorId(monitor)}`, at);
      await this.db.recordChange(c, { kind: 'component', type: MONITOR_CHANGE, id: monitorId(monitor), at });
    });
    this.monitors.delete(key(monitor.dataset, monitor.project_id, monitor.slug));
  }

  async checkin(monitor: Monitor, id: string): Promise<Checkin | undefined> {
    const result = await this.db
      .reader()
      .runAndReadAll(
        `SELECT id, status, duration_ms, environment, expected_at, created_at, updated_at FROM monitor_checkins WHERE dataset = $dataset AND project_id = $project AND slug = $slug AND id = $id`,
        {
          dataset: monitor.dataset,
          project: monitor.project_id,
          slug: monitor.slug,
          id,
        },
      );
    return rows<Checkin>(result)[0];
  }

  async putCheckin(monitor: Monitor, checkin: CheckinInputRow): Promise<Checkin> {
    const row = checkinRow(checkin);
    await this.db.write((c) => writeCheckin(c, monitor, row));
    return row;
  }

  /** A check-in and the monitor state it leads to, in one transaction (one commit per check-in). */
  async saveWithCheckin(monitor: Monitor, checkin: CheckinInputRow): Promise<Checkin> {
    const row = checkinRow(checkin);
    await this.db.write(async (c) => {
      await writeCheckin(c, monitor, row);
      await writeMonitor(c, monitor);
    });
    this.monitors.set(key(monitor.dataset, monitor.project_id, monitor.slug), monitor);
    return row;
  }

  /** The monitor's in_progress check-ins, oldest first. */
  async openCheckins(monitor: Monitor): Promise<Checkin[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT id, status, duration_ms, environment, expected_at, created_at, updated_at FROM monitor_checkins
         WHERE dataset = $dataset AND project_id = $project AND slug = $slug AND status = 'in_progress' ORDER BY created_at`,
      { dataset: monitor.dataset, project: monitor.project_id, slug: monitor.slug },
    );
    return rows<Checkin>(result);
  }

  async checkins(monitor: Monitor, limit: number, cursor?: string): Promise<{ checkins: Checkin[]; nextCursor: string | null }> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const result = await this.db.reader().runAndReadAll(
      `SELECT id, status, duration_ms, environment, expected_at, created_at, updated_at FROM monitor_checkins
       WHERE dataset = $dataset AND project_id = $project AND slug = $slug
         ${after ? 'AND (created_at < $at OR (created_at = $at AND id > $id))' : ''}
       ORDER BY created_at DESC, id LIMIT $limit`,
      {
        dataset: monitor.dataset,
        project: monitor.project_id,
        slug: monitor.slug,
        limit: limit + 1,
        ...(after ? { at: Number(after.micros), id: after.id } : {}),
      },
    );
    const all = rows<Checkin>(result);
    const page = all.slice(0, limit);
    const last = page.at(-1);
    return { checkins: page, nextCursor: all.length > limit && last ? encodeCursor({ micros: BigInt(last.created_at), id: last.id }) : null };
  }

  async addCheck(monitor: Monitor, check: UptimeCheck): Promise<void> {
    await this.db.write((c) =>
      c.run(`INSERT INTO uptime_checks VALUES ($dataset, $project, $slug, $at, $ok, $status, $latency, $error)`, checkParams(monitor, check)),
    );
  }

  async checks(monitor: Monitor, limit: number, before?: number): Promise<UptimeCheck[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT checked_at AS "at", ok, status_code, latency_ms, error FROM uptime_checks
       WHERE dataset = $dataset AND project_id = $project AND slug = $slug ${before !== undefined ? 'AND checked_at < $before' : ''}
       ORDER BY checked_at DESC LIMIT $limit`,
      { dataset: monitor.dataset, project: monitor.project_id, slug: monitor.slug, limit, ...(before !== undefined ? { before } : {}) },
    );
    return rows<UptimeCheck>(result);
  }

  /** Share of successful checks since `since` (null without checks), and latency percentiles of those checks. */
  async uptimeSince(monitor: Monitor, since: number): Promise<{ uptime: number | null; p50: number | null; p95: number | null }> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT count(*) AS n, count(*) FILTER (WHERE ok) AS up,
         quantile_cont(latency_ms, 0.5) AS p50, quantile_cont(latency_ms, 0.95) AS p95
       FROM uptime_checks WHERE dataset = $dataset AND project_id = $project AND slug = $slug AND checked_at >= $since`,
      { dataset: monitor.dataset, project: monitor.project_id, slug: monitor.slug, since },
    );
    const [row] = rows<{ n: number; up: number; p50: number | null; p95: number | null }>(result);
    if (!row || row.n === 0) return { uptime: null, p50: null, p95: null };
    return {
      uptime: Math.round((row.up / row.n) * 10_000) / 100,
      p50: row.p50 === null ? null : Math.round(row.p50),
      p95: row.p95 === null ? null : Math.round(row.p95),
    };
  }

  /** Deletes check-ins and checks dated before `before` (retention). */
  async expire(before: number): Promise<void> {
    await this.db.write(async (c) => {
      await c.run(`DELETE FROM monitor_checkins WHERE created_at < $before AND status <> 'in_progress'`, { before });
      await c.run(`DELETE FROM uptime_checks WHERE checked_at < $before`, { before });
    });
  }
}

/** The control plane's record of the monitor's definition, as of `at`. */
export function definitionChange(m: Monitor, at: number): ComponentChange {
  const { dataset, org_id, project_id, slug, name, type, environment, cron, uptime, paused, created_at } = m;
  const body: MonitorDefinition = { dataset, org_id, project_id, slug, name, type, environment, cron, uptime, paused, created_at };
  return { kind: 'component', type: MONITOR_CHANGE, id: monitorId(m), at, body };
}

async function writeMonitor(c: DuckDBConnection, monitor: Monitor): Promise<void> {
  await c.run(
    `INSERT OR REPLACE INTO monitors VALUES ($dataset, $org, $project, $slug, $name, $type, $environment, $cron, $uptime,
       $paused, $status, $last, $next, $failures, $issue, $created, $updated, $defined)`,
    {
      dataset: monitor.dataset,
      org: monitor.org_id,
      project: monitor.project_id,
      slug: monitor.slug,
      name: monitor.name,
      type: monitor.type,
      environment: monitor.environment,
      cron: monitor.cron ? JSON.stringify(monitor.cron) : null,
      uptime: monitor.uptime ? JSON.stringify(monitor.uptime) : null,
      paused: monitor.paused,
      status: monitor.status,
      last: monitor.last_checkin_at,
      next: monitor.next_expected_at,
      failures: monitor.consecutive_failures,
      issue: monitor.issue_id,
      created: monitor.created_at,
      updated: monitor.updated_at,
      defined: monitor.defined_at ?? null,
    },
  );
}

export type CheckinInputRow = Partial<Checkin> & Pick<Checkin, 'status' | 'created_at'>;

function checkinRow(checkin: CheckinInputRow): Checkin {
  return {
    id: checkin.id ?? randomUUID(),
    status: checkin.status,
    duration_ms: checkin.duration_ms ?? null,
    environment: checkin.environment ?? null,
    expected_at: checkin.expected_at ?? null,
    created_at: checkin.created_at,
    updated_at: checkin.updated_at ?? checkin.created_at,
  };
}

async function writeCheckin(c: DuckDBConnection, monitor: Monitor, row: Checkin): Promise<void> {
  await c.run(
    `INSERT OR REPLACE INTO monitor_checkins VALUES ($id, $dataset, $project, $slug, $status, $duration, $environment, $expected, $created, $updated)`,
    {
      id: row.id,
      dataset: monitor.dataset,
      project: monitor.project_id,
      slug: monitor.slug,
      status: row.status,
      duration: row.duration_ms,
      environment: row.environment,
      expected: row.expected_at,
      created: row.created_at,
      updated: row.updated_at,
    },
  );
}

async function deleteRows(c: DuckDBConnection, monitor: Monitor): Promise<void> {
  const params = { dataset: monitor.dataset, project: monitor.project_id, slug: monitor.slug };
  for (const table of ['monitors', 'monitor_checkins', 'uptime_checks'])
    await c.run(`DELETE FROM ${table} WHERE dataset = $dataset AND project_id = $project AND slug = $slug`, params);
}

function checkParams(monitor: Monitor, check: UptimeCheck) {
  return {
    dataset: monitor.dataset,
    project: monitor.project_id,
    slug: monitor.slug,
    at: check.at,
    ok: check.ok,
    status: check.status_code,
    latency: check.latency_ms,
    error: check.error,
  };
}
