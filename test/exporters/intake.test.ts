// The duckdb exporter's intake (exporters/duckdb/intake.ts) on its own: the real Intake over a real
// Database and DocStore in a temporary directory, with the real event and span kinds. Where a
// behaviour needs a failure or a pause at one point (a refused commit, indexing held back), the
// real kind is wrapped, and everything else runs as in the service. Orderings are asserted with
// flags and logs, never with the clock; waits are bounded polls on what the files show.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DocStore, type DocKey } from '../../exporters/duckdb/docs.js';
import { eventIntake } from '../../exporters/duckdb/events-intake.js';
import { Intake, type Accepted, type IntakeKind } from '../../exporters/duckdb/intake.js';
import { closeAppenders } from '../../exporters/duckdb/kept-appenders.js';
import { DUCKDB_MIGRATIONS } from '../../exporters/duckdb/migrations.js';
import { spanIntake } from '../../exporters/duckdb/spans-intake.js';
import type { Item, Tenant } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Span } from '../../src/records/span.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { migrate } from '../../extensions/duckdb/migrate.js';
import { tempDir } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

const TENANT: Tenant = { orgId: 'org', projectId: 'p1', dataset: 'live' };
const ISSUE = 'issue-1';
const TRACE = 'a'.repeat(32);
const logger = pino({ level: 'silent' });
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const item = <T>(data: T): Item<T> => ({ data, tenant: TENANT, receivedAt: Date.now(), size: 1 });

function event(overrides: Partial<ErrorEvent> = {}): ErrorEvent {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    timestamp: now,
    received_at: now,
    project_id: TENANT.projectId,
    environment: 'production',
    release: 'web@1.0.0',
    level: 'error',
    exception: { type: 'TypeError', value: 'x is undefined' },
    processing_errors: [],
    issue_id: ISSUE,
    grouping_hash: 'hash-1',
    title: 'TypeError: x is undefined',
    ...overrides,
  };
}

function span(overrides: Partial<Span> = {}): Span {
  const start = BigInt(Date.now() - 1000) * 1_000_000n;
  return {
    trace_id: TRACE,
    span_id: hex(8),
    parent_span_id: '',
    name: 'GET /cart',
    service_name: 'api',
    start_time_unix_nano: start,
    end_time_unix_nano: start + 5_000_000n,
    status: 'unset',
    kind: 'server',
    attributes: {},
    resource_attributes: {},
    events: [],
    links: [],
    project_id: TENANT.projectId,
    received_at: new Date().toISOString(),
    ...overrides,
  };
}

/** What differs between the two real kinds, for the behaviours both share. */
interface KindCase<T> {
  kind: IntakeKind<T>;
  make(): T;
  /** An item the intake accepts (its document is stored) but DuckDB cannot index. */
  poisoned(): T;
  id(data: T): string;
  /** Rows per item id in the kind's table. */
  rows(db: Database): Promise<Map<string, number>>;
}

async function rowCounts(db: Database, sql: string): Promise<Map<string, number>> {
  const result = await db.reader().runAndReadAll(sql);
  return new Map(result.getRows().map(([id, count]) => [String(id), Number(count)]));
}

const EVENTS: KindCase<ErrorEvent> = {
  kind: eventIntake,
  make: () => event(),
  poisoned: () => event({ timestamp: 'not a time' }),
  id: (e) => e.id,
  rows: (db) => rowCounts(db, 'SELECT id, count(*) FROM events GROUP BY id'),
};

const SPANS: KindCase<Span> = {
  kind: spanIntake,
  make: () => span(),
  poisoned: () => span({ start_time_unix_nano: 2n ** 64n, end_time_unix_nano: 2n ** 64n }),
  id: (s) => s.span_id,
  rows: (db) => rowCounts(db, 'SELECT span_id, count(*) FROM spans GROUP BY span_id'),
};

const KINDS = [
  ['events', EVENTS],
  ['spans', SPANS],
] as const;

/** Each item id once. */
function once(ids: string[]): Map<string, number> {
  return new Map(ids.map((id) => [id, 1]));
}

async function issueCount(db: Database): Promise<number | undefined> {
  const rows = (await db.reader().runAndReadAll('SELECT count FROM issues WHERE id = $id', { id: ISSUE })).getRows();
  return rows.length ? Number(rows[0][0]) : undefined;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls `condition` (every 10 ms, at most `limitMs`): for states reached through DuckDB's own threads and the retry timer. */
async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 10) {
    if (waited >= limitMs) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One turn of the event loop: the promises settled by then have run their continuations. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

type Quarantined = { keys: DocKey[]; reason: string };

describe('duckdb intake', () => {
  let dir: string;
  let db: Database;
  let docs: DocStore;
  let intakes: Array<Intake<unknown>>;
  let quarantined: Quarantined[];
  /** Connections other than the writer that kept appenders (see failingCommits), closed with it. */
  let extraConnections: DuckDBConnection[];

  beforeEach(async () => {
    dir = tempDir('faultline-intake-');
    db = await migratedDatabase(dir, ['issues']);
    docs = DocStore.open(dir);
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs);
    intakes = [];
    quarantined = [];
    extraConnections = [];
  });

  afterEach(async () => {
    for (const intake of intakes) await intake.shutdown();
    await db.write(async (connection) => {
      for (const extra of extraConnections) closeAppenders(extra);
      closeAppenders(connection);
    });
    await docs.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An Intake as the exporter makes one; refused items are recorded instead of moved to the service's quarantine. */
  function intake<T>(kind: IntakeKind<T>, maxBatch = 100, maxBacklog = 4 * maxBatch, maxBacklogBytes = 64 * 1024 * 1024): Intake<T> {
    const made = new Intake(
      kind,
      db,
      docs,
      maxBatch,
      maxBacklog,
      maxBacklogBytes,
      logger,
      async (items: Array<Accepted<T> & { key: DocKey }>, reason: string) => {
        quarantined.push({ keys: items.map((i) => i.key), reason });
      },
    );
    intakes.push(made as Intake<unknown>);
    return made;
  }

  const pendingKeys = (kind: IntakeKind<unknown>) =>
    docs
      .allPending(kind.kind)
      .flatMap(({ value }) => (JSON.parse(value) as { items: Array<{ key: DocKey }> }).items.map((i) => JSON.stringify(i.key)))
      .sort();

  describe('in-flight duplicates', () => {
    /** eventIntake whose duplicate hook records what each copy was told the original is. */
    function recordingDuplicates() {
      const seen: Array<{ copy: ErrorEvent; original: ErrorEvent }> = [];
      const kind: IntakeKind<ErrorEvent> = {
        ...eventIntake,
        duplicate(copy, original) {
          seen.push({ copy, original: original() });
          eventIntake.duplicate?.(copy, original);
        },
      };
      return { kind, seen };
    }

    /** The original, and copies of it that a later grouping put in another issue: the hook must give them the original's. */
    function originalAndCopies(count: number) {
      const original = event();
      const copies = Array.from({ length: count }, () => ({ ...original, issue_id: 'issue-of-a-copy' }));
      return { original, copies };
    }

    async function expectStoredOnce(original: ErrorEvent, copies: ErrorEvent[], seen: Array<{ copy: ErrorEvent; original: ErrorEvent }>) {
      expect(await EVENTS.rows(db)).toEqual(once([original.id]));
      expect(await issueCount(db)).toBe(1);
      expect(seen.map((s) => s.copy)).toEqual(expect.arrayContaining(copies));
      expect(seen).toHaveLength(copies.length);
      for (const { original: told } of seen) expect(told).toMatchObject({ id: original.id, issue_id: ISSUE });
      for (const copy of copies) expect(copy.issue_id, 'a copy is acknowledged with the issue of the stored original').toBe(ISSUE);
      expect(docs.allPending('events')).toEqual([]);
    }

    it('copies in one batch are stored once, and each copy is told the original', async () => {
      const { kind, seen } = recordingDuplicates();
      const events = intake(kind);
      const { original, copies } = originalAndCopies(2);
      await events.accept([original, ...copies].map(item));
      await events.settled();
      await expectStoredOnce(original, copies, seen);
    });

    it('a copy accepted while the original is being made durable waits for it, and is stored once', async () => {
      const { kind, seen } = recordingDuplicates();
      const events = intake(kind);
      const { original, copies } = originalAndCopies(2);
      // The original's documents are handed to the DocStore (which commits them at the end of the
      // event loop's turn): the copies arrive while that commit is in flight.
      const handed = deferred();
      const realPut = docs.put.bind(docs);
      const put = vi.spyOn(docs, 'put').mockImplementation((...args) => {
        handed.resolve();
        return realPut(...args);
      });
      const first = events.accept([item(original)]);
      await handed.promise; // a microtask later: the commit waits for the end of the turn
      expect(docs.has('events', eventIntake.key(TENANT, original)), 'the original is not durable yet').toBe(false);
      let copiesDone = false;
      const later = Promise.all(copies.map((copy) => events.accept([item(copy)]))).then(() => (copiesDone = true));
      await first;
      await later;
      expect(copiesDone).toBe(true);
      expect(put, 'the copies wrote nothing').toHaveBeenCalledTimes(1);
      await events.settled();
      await expectStoredOnce(original, copies, seen);
    });

    it('a copy accepted after the original was stored is told the stored original', async () => {
      const { kind, seen } = recordingDuplicates();
      const events = intake(kind);
      const { original, copies } = originalAndCopies(1);
      await events.accept([item(original)]);
      await events.settled();
      await events.accept(copies.map(item));
      await events.settled();
      await expectStoredOnce(original, copies, seen);
    });

    // Found by this test: keys were claimed only after an await, so same-tick copies were all stored.
    it('copies accepted in the same tick are stored once, and each copy is told the original', async () => {
      const { kind, seen } = recordingDuplicates();
      const events = intake(kind);
      const { original, copies } = originalAndCopies(2);
      await Promise.all([original, ...copies].map((e) => events.accept([item(e)])));
      await events.settled();
      await expectStoredOnce(original, copies, seen);
    });
  });

  it('indexes requests a few dozen milliseconds apart in one DuckDB transaction, and a read does not wait for the linger', async () => {
    // A DuckDB transaction costs about the same for a few rows as for many: a moderate rate must
    // fill one too (LINGER_MS), while a read still starts the indexing at once.
    const transactions: number[] = [];
    const kind: IntakeKind<ErrorEvent> = {
      ...eventIntake,
      index(connection, batch, recheck) {
        transactions.push(batch.length);
        return eventIntake.index(connection, batch, recheck);
      },
    };
    const events = intake(kind);
    for (let i = 0; i < 5; i++) {
      await events.accept([item(event())]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await until(async () => (await issueCount(db)) === 5, 'five events indexed');
    expect(transactions).toEqual([5]);

    await events.accept([item(event())]);
    await events.settled(); // what every read does first
    expect(await issueCount(db)).toBe(6);
    expect(transactions).toEqual([5, 1]);
  });

  it('holds an accept that takes the backlog past its limit until indexing catches up, and indexes everything', async () => {
    // maxBatch 1, maxBacklog 2: the third queued item is one too many. Indexing is held at a gate
    // so that the backlog cannot shrink until the test says.
    const gate = deferred();
    const log: string[] = [];
    const all = [event(), event(), event(), event()];
    const name = (e: ErrorEvent) => `e${all.findIndex((x) => x.id === e.id)}`; // the queue holds slimmed copies
    const kind: IntakeKind<ErrorEvent> = {
      ...eventIntake,
      async index(connection, batch, recheck) {
        await gate.promise;
        await eventIntake.index(connection, batch, recheck);
        log.push(`indexed ${batch.map((b) => name(b.data)).join(',')}`);
      },
    };
    const events = intake(kind, 1, 2);
    await events.accept([item(all[0])]);
    await events.accept([item(all[1])]);
    const accepted = new Set<string>();
    const accept = (e: ErrorEvent) =>
      events.accept([item(e)]).then(() => {
        accepted.add(name(e));
        log.push(`accepted ${name(e)}`);
      });
    const third = accept(all[2]);
    const fourth = accept(all[3]);
    // Both are durable (their pending entries are committed) and queued, yet neither is answered.
    await until(() => docs.allPending('events').length === 4, 'four pending entries');
    await turn();
    expect(accepted, 'accepts past the backlog wait for indexing').toEqual(new Set());
    expect(log).toEqual([]);

    gate.resolve();
    await Promise.all([third, fourth]);
    // Each was answered only once indexing had taken the backlog back to its limit.
    expect(log.indexOf('indexed e0')).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('indexed e0')).toBeLessThan(log.indexOf('accepted e2'));
    expect(log.indexOf('indexed e1')).toBeLessThan(log.indexOf('accepted e3'));
    await events.settled();
    expect(await EVENTS.rows(db)).toEqual(once(all.map((e) => e.id)));
    expect(await issueCount(db)).toBe(4);
    expect(docs.allPending('events')).toEqual([]);
  });

  describe.each(KINDS)('%s', (_name, c: KindCase<unknown>) => {
    it('retries a batch whose commit failed: pending meanwhile, then indexed exactly once', async () => {
      const failing = failingCommits(c.kind, 2);
      const runs = intake(failing.kind);
      const items = [c.make(), c.make(), c.make()];
      await runs.accept(items.map(item)); // acknowledged: durable in the DocStore
      const keys = items.map((data) => JSON.stringify(c.kind.key(TENANT, data))).sort();

      await until(() => failing.failed === 1, 'the first commit refused');
      // Rolled back, nothing in DuckDB; the items wait in their pending entry.
      expect(await c.rows(db)).toEqual(new Map());
      expect(pendingKeys(c.kind)).toEqual(keys);
      failing.release();

      await until(async () => docs.allPending(c.kind.kind).length === 0, 'the pending entry removed after the retries', 15_000);
      expect(failing.failed).toBe(2);
      expect(failing.attempts).toBe(3); // two refused, one committed
      expect(await c.rows(db)).toEqual(once(items.map(c.id)));
      if (c === EVENTS) expect(await issueCount(db)).toBe(3);
      expect(quarantined, 'a failing disk is no reason to quarantine').toEqual([]);
    });

    it('quarantines exactly the one item DuckDB refuses in a batch of many, and indexes the others', async () => {
      const batches: number[] = [];
      const kind: IntakeKind<unknown> = {
        ...c.kind,
        index: (connection, batch, recheck) => {
          batches.push(batch.length);
          return c.kind.index(connection, batch, recheck);
        },
      };
      const runs = intake(kind);
      const good = [c.make(), c.make(), c.make(), c.make(), c.make()];
      const bad = c.poisoned();
      await runs.accept([...good.slice(0, 3), bad, ...good.slice(3)].map(item));
      await runs.settled();

      expect(batches[0], 'all six were tried in one batch first').toBe(6);
      expect(quarantined.map((q) => q.keys)).toEqual([[c.kind.key(TENANT, bad)]]);
      expect(quarantined[0].reason).not.toBe('');
      expect(await c.rows(db)).toEqual(once(good.map(c.id)));
      if (c === EVENTS) expect(await issueCount(db)).toBe(5);
      expect(docs.allPending(c.kind.kind)).toEqual([]);
    });

    it('recover() indexes what a crash left pending, and not again what DuckDB already has', async () => {
      const indexed = c.make();
      const first = intake(c.kind);
      await first.accept([item(indexed)]);
      await first.settled();
      expect(docs.allPending(c.kind.kind)).toEqual([]);

      // As a crash would leave them: one item acknowledged and never indexed, and one indexed whose
      // pending entry was not deleted yet.
      const lost = c.make();
      const entry = (data: unknown) => ({ kind: c.kind.kind, key: c.kind.key(TENANT, data), doc: c.kind.document(data) });
      const pending = (data: unknown) => ({ tenant: TENANT, key: c.kind.key(TENANT, data), extra: c.kind.pending(data) });
      await docs.put([entry(lost), entry(indexed)], { kind: c.kind.kind, id: 'crash', value: JSON.stringify({ items: [pending(lost), pending(indexed)] }) });

      const rechecks: boolean[] = [];
      const restarted = intake<unknown>({
        ...c.kind,
        index: (connection, batch, recheck) => {
          rechecks.push(recheck);
          return c.kind.index(connection, batch, recheck);
        },
      });
      await restarted.recover();
      expect(rechecks.length).toBeGreaterThan(0);
      expect(rechecks.every(Boolean), 'items from pending entries are checked against DuckDB').toBe(true);
      expect(await c.rows(db)).toEqual(once([c.id(indexed), c.id(lost)]));
      if (c === EVENTS) expect(await issueCount(db)).toBe(2);
      expect(docs.allPending(c.kind.kind)).toEqual([]);
    });
  });

  /**
   * The kind, but its first `failures` commits are refused as a full disk refuses them: the rows
   * are appended and the statements before COMMIT run, then COMMIT fails with a transient error
   * and the transaction is rolled back. Each attempt after the first waits for release().
   */
  function failingCommits<T>(of: IntakeKind<T>, failures: number) {
    const COMMIT = /\bCOMMIT;?\s*$/i;
    const state = { attempts: 0, failed: 0 };
    const released = deferred();
    let proxy: DuckDBConnection | undefined;
    const failingAtCommit = (connection: DuckDBConnection): DuckDBConnection => {
      // One proxy for the writer, so that its kept appenders are kept too (and closed in afterEach).
      if (proxy) return proxy;
      proxy = new Proxy(connection, {
        get(target, property) {
          if (property === 'run')
            return async (...args: Parameters<DuckDBConnection['run']>) => {
              const [sql] = args;
              if (state.failed >= failures || !COMMIT.test(sql)) return target.run(...args);
              const before = sql.replace(COMMIT, '').trim();
              if (before) await target.run(before);
              state.failed++;
              throw new Error('IO Error: Could not write to the WAL file: No space left on device');
            };
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      extraConnections.push(proxy);
      return proxy;
    };
    const kind: IntakeKind<T> = {
      ...of,
      async index(connection, batch, recheck) {
        if (state.attempts++ > 0) await released.promise;
        return of.index(failingAtCommit(connection), batch, recheck);
      },
    };
    return {
      kind,
      release: released.resolve,
      get attempts() {
        return state.attempts;
      },
      get failed() {
        return state.failed;
      },
    };
  }
});
