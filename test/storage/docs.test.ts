// The DocStore beside the DuckDB file: the real service for what the API shows, a real Database
// for what only the files can show (a document without a row, a database from before the store).
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/storage/database.js';
import { startService, tempDir, type TestService } from '../support/service.js';

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

  it('stores an event whose id has a document but no row (a commit that failed after the document was written)', async () => {
    svc = await startService();
    const projects = (await (await svc.api('/v1/projects')).json()) as { data: Array<{ id: string }> };
    const project = projects.data[0].id;
    await svc.service.host.database.docs.putEvents([{ key: ['live', project, ID], doc: '{"orphan":true}' }]);

    const first = await svc.api('/v1/events', { method: 'POST', body: body('first') });
    expect(first.status, await first.clone().text()).toBe(202);
    const stored = (await (await svc.api(`/v1/events/${ID}`)).json()) as { exception: { value: string } };
    expect(stored.exception.value).toBe('first');
    // Sent again, it is a duplicate: the first one stays.
    expect((await svc.api('/v1/events', { method: 'POST', body: body('second') })).status).toBe(202);
    const again = (await (await svc.api(`/v1/events/${ID}`)).json()) as { exception: { value: string } };
    expect(again.exception.value).toBe('first');
    const list = (await (await svc.api('/v1/events')).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(1);
  });

  it('moves the documents of a database written before the store out of its rows (migration 5)', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = await Database.open(dir);
    await db.write(async (c) => {
      await c.run(`INSERT INTO events (dataset, project_id, id, timestamp, received_at, issue_id, environment, release, level, exception_type, exception_value, doc)
        SELECT 'live', 'p' || (i % 2)::VARCHAR, 'id-' || i::VARCHAR, now(), now(), 'issue', 'production', '', 'error', 'Error', 'v', '{"n":' || i::VARCHAR || '}'
        FROM range(25000) AS r(i)`);
      await c.run('DELETE FROM schema_migrations WHERE version = 5');
    });
    await db.close();

    const reopened = await Database.open(dir);
    try {
      const left = await reopened.reader().runAndReadAll("SELECT count(*) FROM events WHERE doc <> ''");
      expect(Number(left.getRows()[0][0])).toBe(0);
      expect(reopened.docs.getEvent('live', 'p1', 'id-24999')).toBe('{"n":24999}');
      expect(reopened.docs.getEvent('live', 'p0', 'id-0')).toBe('{"n":0}');
      expect(reopened.docs.getEvent('live', 'p0', 'id-1')).toBeUndefined();
    } finally {
      await reopened.close();
    }
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
    const db = await Database.open(dataDir);
    const tenant = { orgId: 'default', projectId: stored.project_id, dataset: 'live' };
    const other = { ...stored, id: '0192f0a4-7b1c-7d2e-8f00-000000000002', exception: { type: 'TypeError', value: 'pending' } };
    await db.docs.putEvents([
      { key: ['live', stored.project_id, other.id], doc: JSON.stringify(other), pending: JSON.stringify({ tenant, grouping_hash: 'h' }) },
      { key: ['live', stored.project_id, ID], doc: JSON.stringify(stored), pending: JSON.stringify({ tenant, grouping_hash: 'h' }) },
    ]);
    await db.close();

    svc = await startService({ dataDir, keys });
    const recovered = (await (await svc.api(`/v1/events/${other.id}`)).json()) as { exception: { value: string } };
    expect(recovered.exception.value).toBe('pending');
    const list = (await (await svc.api('/v1/events')).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((e) => e.id).sort()).toEqual([ID, other.id].sort());
    const issue = (await (await svc.api(`/v1/issues/${stored.issue_id}`)).json()) as { count: number };
    expect(issue.count).toBe(2);
    expect(svc.service.host.database.docs.allPending()).toEqual([]);
  });
});
