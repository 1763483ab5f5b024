// The DocStore beside the DuckDB file: the real service for what the API shows, a real Database
// for what only the files can show (pending entries left by a crash, a database from before the store).
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { DocStore, spanKey } from '../../exporters/duckdb/docs.js';
import type { DuckdbExporter } from '../../exporters/duckdb/exporter.js';
import { DUCKDB_MIGRATIONS } from '../../exporters/duckdb/migrations.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { migrate } from '../../extensions/duckdb/migrate.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

const ID = '0192f0a4-7b1c-7d2e-8f00-123456789abc';
const body = (value: string) =>
  JSON.stringify({ id: ID, exception: { type: 'TypeError', value }, timestamp: new Date().toISOString(), environment: 'production', release: 'web@1.0.0' });

describe('DocStore', () => {
  let svc: TestService | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A database whose documents are still in its rows: migrated, rows inserted with `insert`, the
   * migration `version` forgotten; then reopened and migrated again, and handed to `check`.
   */
  async function rerunMigration(version: number, insert: string, check: (db: Database, docs: DocStore) => Promise<void>): Promise<void> {
    const dir = tempDir();
    dirs.push(dir);
    const db = await migratedDatabase(dir, ['issues']);
    const docs = DocStore.open(dir);
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs);
    await db.write(async (c) => {
      await c.run(insert);
      await c.run(`DELETE FROM migrations WHERE owner = 'duckdb' AND version = ${version}`);
    });
    await db.close();
    await docs.close();

    const reopened = await migratedDatabase(dir, ['issues']);
    const reopenedDocs = DocStore.open(dir);
    try {
      await migrate(reopened, 'duckdb', DUCKDB_MIGRATIONS, reopenedDocs);
      await check(reopened, reopenedDocs);
    } finally {
      await reopened.close();
      await reopenedDocs.close();
    }
  }
  const left = async (db: Database, table: string) =>
    Number((await db.reader().runAndReadAll(`SELECT count(*) FROM ${table} WHERE doc <> ''`)).getRows()[0][0]);

  it('moves the documents of a database written before the store out of its rows (migration 5)', async () => {
    await rerunMigration(
      4,
      `INSERT INTO events (dataset, project_id, id, timestamp, received_at, issue_id, environment, release, level, exception_type, exception_value, doc)
        SELECT 'live', 'p' || (i % 2)::VARCHAR, 'id-' || i::VARCHAR, now(), now(), 'issue', 'production', '', 'error', 'Error', 'v', '{"n":' || i::VARCHAR || '}'
        FROM range(25000) AS r(i)`,
      async (db, docs) => {
        expect(await left(db, 'events')).toBe(0);
        expect(docs.get('events', ['live', 'p1', 'id-24999'])).toBe('{"n":24999}');
        expect(docs.get('events', ['live', 'p0', 'id-0'])).toBe('{"n":0}');
        expect(docs.get('events', ['live', 'p0', 'id-1'])).toBeUndefined();
      },
    );
  });

  it("moves the span documents of a database written before the store under the exporter's span keys (migration 6)", async () => {
    const startNs = 1_763_900_123_456_789_000n;
    await rerunMigration(
      5,
      `INSERT INTO spans (dataset, project_id, trace_id, span_id, parent_span_id, name, service_name, start_ns, end_ns, status, kind, received_at, doc)
        SELECT 'live', 'p1', 'a' || i::VARCHAR, 'b' || i::VARCHAR, '', 'op', 'api', ${startNs} + i * 1000000000, ${startNs} + i * 1000000000 + 5, 'unset', 'server', now(),
          '{"n":' || i::VARCHAR || '}' FROM range(300) AS r(i)`,
      async (db, docs) => {
        expect(await left(db, 'spans')).toBe(0);
        expect(docs.get('traces', spanKey('live', 'p1', startNs + 299n * 1_000_000_000n, 'a299', 'b299'))).toBe('{"n":299}');
        expect(docs.get('traces', spanKey('live', 'p1', startNs, 'a0', 'b0'))).toBe('{"n":0}');
      },
    );
  });

  it('indexes after a restart what was acknowledged but not yet in DuckDB, and nothing twice', async () => {
    const first = await startService({ keepData: true });
    const keys = { live: first.liveKey, test: first.testKey };
    const dataDir = first.dataDir;
    dirs.push(dataDir);
    expect((await first.api('/v1/events', { method: 'POST', body: body('indexed') })).status).toBe(202);
    const stored = (await (await first.api(`/v1/events/${ID}`)).json()) as Record<string, unknown> & { project_id: string; issue_id: string };
    await first.stop();

    // As a crash would leave them: one acknowledged event never indexed, and one indexed whose
    // pending entry was not deleted yet.
    const docs = DocStore.open(dataDir);
    const tenant = { orgId: 'default', projectId: stored.project_id, dataset: 'live' };
    const other = { ...stored, id: '0192f0a4-7b1c-7d2e-8f00-000000000002', exception: { type: 'TypeError', value: 'pending' } };
    await docs.put(
      [
        { kind: 'events', key: ['live', stored.project_id, other.id], doc: JSON.stringify(other) },
        { kind: 'events', key: ['live', stored.project_id, ID], doc: JSON.stringify(stored) },
      ],
      {
        kind: 'events',
        id: 'crash',
        value: JSON.stringify({
          items: [
            { tenant, key: ['live', stored.project_id, other.id], extra: 'h' },
            { tenant, key: ['live', stored.project_id, ID], extra: 'h' },
          ],
        }),
      },
    );
    await docs.close();

    svc = await startService({ dataDir, keys });
    const recovered = (await (await svc.api(`/v1/events/${other.id}`)).json()) as { exception: { value: string } };
    expect(recovered.exception.value).toBe('pending');
    const list = (await (await svc.api('/v1/events?project_id=default')).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((e) => e.id).sort()).toEqual([ID, other.id].sort());
    const issue = (await (await svc.api(`/v1/issues/${stored.issue_id}`)).json()) as { count: number };
    expect(issue.count).toBe(2);
    expect(documents(svc).allPending('events')).toEqual([]);
  });

  it('indexes spans acknowledged but not yet in DuckDB after a restart, and nothing twice', async () => {
    const first = await startService({ keepData: true });
    const keys = { live: first.liveKey, test: first.testKey };
    const dataDir = first.dataDir;
    dirs.push(dataDir);
    const trace = 'a'.repeat(32);
    const now = Date.now();
    const span = (spanId: string, parent: string) => ({
      trace_id: trace,
      span_id: spanId,
      parent_span_id: parent,
      name: `op ${spanId}`,
      service_name: 'api',
      start_time: now,
      end_time: now + 5,
    });
    expect((await first.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [span('1'.repeat(16), '')] }) })).status).toBe(202);
    const before = (await (await first.api(`/v1/traces/${trace}`)).json()) as { spans: Array<Record<string, unknown>> };
    const projects = (await (await first.api('/v1/projects')).json()) as { data: Array<{ id: string }> };
    const project = projects.data[0].id;
    await first.stop();

    const docs = DocStore.open(dataDir);
    const tenant = { orgId: 'default', projectId: project, dataset: 'live' };
    const child = { ...before.spans[0], span_id: '2'.repeat(16), parent_span_id: '1'.repeat(16), name: 'op child' };
    const childKey = spanKey('live', project, BigInt(now) * 1_000_000n, trace, '2'.repeat(16));
    const rootKey = spanKey('live', project, BigInt(now) * 1_000_000n, trace, '1'.repeat(16));
    const receivedAt = new Date(now).toISOString();
    await docs.put(
      [
        { kind: 'traces', key: childKey, doc: JSON.stringify(child) },
        { kind: 'traces', key: rootKey, doc: JSON.stringify(before.spans[0]) },
      ],
      {
        kind: 'traces',
        id: 'crash',
        value: JSON.stringify({
          items: [
            { tenant, key: childKey, extra: receivedAt },
            { tenant, key: rootKey, extra: receivedAt },
          ],
        }),
      },
    );
    await docs.close();

    svc = await startService({ dataDir, keys });
    const after = (await (await svc.api(`/v1/traces/${trace}`)).json()) as {
      span_count: number;
      spans: Array<{ name: string }>;
      tree: Array<{ children: unknown[] }>;
    };
    expect(after.span_count).toBe(2);
    expect(after.spans.map((s) => s.name).sort()).toEqual(['op 1111111111111111', 'op child']);
    expect(after.tree).toHaveLength(1);
    expect(after.tree[0].children).toHaveLength(1);
    expect(documents(svc).allPending('traces')).toEqual([]);
  });

  it('finds, recognizes and removes spans of a store written with the first span key layout', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const startNs = 1_763_900_123_456_000_000n;
    const key = spanKey('live', 'p1', startNs, 'a'.repeat(32), 'b'.repeat(16));
    // The first layout: (dataset, project, start in ms, trace, span), and no layout recorded.
    mkdirSync(join(dir, 'docs'));
    const old = open({ path: join(dir, 'docs'), compression: false });
    for (const name of ['events', 'replay_segments', 'pending_events', 'pending_spans', 'pending_replay_segments']) await old.openDB({ name }).put('x', 'x');
    await old
      .openDB<string, Array<string | number>>({ name: 'spans', encoding: 'string' })
      .put(['live', 'p1', 1_763_900_123_456, 'a'.repeat(32), 'b'.repeat(16)], '{"old":true}');
    await old.close();

    const docs = DocStore.open(dir);
    expect(docs.get('traces', key)).toBe('{"old":true}');
    expect(docs.has('traces', key)).toBe(true);
    const fresh = spanKey('live', 'p1', startNs, 'c'.repeat(32), 'd'.repeat(16));
    await docs.put([{ kind: 'traces', key: fresh, doc: '{"new":true}' }]);
    expect(docs.get('traces', fresh)).toBe('{"new":true}');
    await docs.remove('traces', [key]);
    expect(docs.has('traces', key)).toBe(false);
    await docs.close();

    // Still read as a store that may hold both, after a restart.
    const reopened = DocStore.open(dir);
    expect(reopened.get('traces', fresh)).toBe('{"new":true}');
    expect(reopened.has('traces', spanKey('live', 'p1', startNs, 'a'.repeat(32), 'b'.repeat(16)))).toBe(false);
    await reopened.close();
  });

  it('keeps spans of one trace and minute side by side, newer minutes after older ones', () => {
    const minute = 60_000_000_000n;
    const at = (ns: bigint, trace: string) => spanKey('live', 'p1', ns, trace, '1'.repeat(16));
    const t0 = 1_763_899_980_000_000_000n; // the start of a minute
    expect(at(t0 + 5n, 'b'.repeat(32)).slice(0, 4)).toEqual(at(t0 + 59_000_000_000n, 'b'.repeat(32)).slice(0, 4));
    expect(at(t0 + minute, 'a'.repeat(32))[2]).toBeGreaterThan(at(t0, 'f'.repeat(32))[2] as number);
  });

  it('holds senders past the indexing backlog and stores concurrent copies of one id once', async () => {
    // max_batch_items 1: DuckDB indexes one event per transaction and the backlog limit is 4, so
    // most of these requests wait for room before they are answered.
    const yaml = readFileSync('config/default.yaml', 'utf8').replace('  duckdb: {}', '  duckdb:\n    max_batch_items: 1');
    svc = await startService({ yaml });
    const fresh = Array.from({ length: 40 }, (_, i) => `0192f0a4-7b1c-7d2e-8f00-${String(i).padStart(12, '0')}`);
    const post = (id: string, value: string) =>
      svc!.api('/v1/events', {
        method: 'POST',
        body: JSON.stringify({
          id,
          exception: { type: 'TypeError', value },
          timestamp: new Date().toISOString(),
          environment: 'production',
          release: 'web@1.0.0',
        }),
      });
    const answers = await Promise.all([...fresh.map((id) => post(id, 'many')), post(ID, 'same'), post(ID, 'same'), post(ID, 'same')]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 202));
    const acks = (await Promise.all(answers.slice(-3).map((a) => a.json()))) as Array<{ permalink: string }>;
    expect(new Set(acks.map((a) => a.permalink)).size).toBe(1);

    const list = (await (await svc.api('/v1/events?project_id=default&limit=100')).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((e) => e.id).sort()).toEqual([...fresh, ID].sort());
    const issues = (await (await svc.api('/v1/issues?project_id=default')).json()) as { data: Array<{ count: number }> };
    expect(issues.data.reduce((sum, issue) => sum + issue.count, 0)).toBe(41);
    expect(documents(svc).allPending('events')).toEqual([]);
  });
});

function documents(svc: TestService): DocStore {
  return (svc.service.exporter('duckdb') as DuckdbExporter).documents();
}
