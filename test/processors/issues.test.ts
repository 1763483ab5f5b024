// The issues processor against a real catalog: what each event does to its issue, recorded before
// export, and seen by the read API.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../extensions/duckdb/database.js';
import { IssueStates } from '../../extensions/issues/issue-states.js';
import { fullEvent, startService, tempDir, type TestService } from '../support/service.js';
import { databaseOf } from '../../extensions/duckdb/index.js';
import { migratedDatabase } from '../support/test-host.js';

describe('IssueStates', () => {
  let db: Database;
  let states: IssueStates;
  beforeAll(async () => {
    db = await migratedDatabase(tempDir('faultline-issue-states-'), ['issues']);
    states = new IssueStates(db);
  });
  afterAll(() => db.close());

  const observe = (issueId: string, eventId: string) => states.observe([{ dataset: 'live', projectId: 'p', issueId, eventId }]);

  it('opens an issue once, again only for a retry of the event that opened it', async () => {
    expect(await observe('i1', 'e1')).toEqual(['new']);
    expect(await observe('i1', 'e2')).toEqual([undefined]);
    expect(await observe('i1', 'e1')).toEqual(['new']); // the first attempt may have failed after the issue was recorded
    // A fresh process (empty cache) reads the state back from the catalog.
    const again = new IssueStates(db);
    expect(await again.observe([{ dataset: 'live', projectId: 'p', issueId: 'i1', eventId: 'e3' }])).toEqual([undefined]);
  });

  it('reopens a resolved issue once; ignored issues stay ignored', async () => {
    await observe('i2', 'e1');
    await states.setStatus('live', 'p', 'i2', 'resolved');
    expect(await observe('i2', 'e2')).toEqual(['regressed']);
    expect(await observe('i2', 'e3')).toEqual([undefined]);
    const row = (await db.reader().runAndReadAll("SELECT status FROM issue_states WHERE id = 'i2'")).getRows();
    expect(row).toEqual([['regressed']]);

    // A retry of the event that reopened it (its first attempt failed after the status was written) reopens it again, in a fresh process too.
    expect(await observe('i2', 'e2')).toEqual(['regressed']);
    expect(await new IssueStates(db).observe([{ dataset: 'live', projectId: 'p', issueId: 'i2', eventId: 'e2' }])).toEqual(['regressed']);

    await states.setStatus('live', 'p', 'i2', 'ignored');
    expect(await observe('i2', 'e4')).toEqual([undefined]);
  });

  it('decides one transition for concurrent first events of one issue', async () => {
    const decided = await Promise.all(['a', 'b', 'c', 'd'].map((event) => observe('i3', event)));
    expect(decided.flat().filter((t) => t === 'new')).toHaveLength(1);
  });

  it('decides within one batch in order', async () => {
    const batch = [
      { dataset: 'live' as const, projectId: 'p', issueId: 'i4', eventId: 'x' },
      { dataset: 'live' as const, projectId: 'p', issueId: 'i4', eventId: 'y' },
      { dataset: 'live' as const, projectId: 'p', issueId: 'i5', eventId: 'z' },
    ];
    expect(await states.observe(batch)).toEqual(['new', undefined, 'new']);
  });
});

describe('issues processor in the service', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(() => svc.stop());

  it('records the issue before the acknowledgment and regresses it when resolved', async () => {
    const post = async () => {
      const res = await svc.api('/v1/events', {
        method: 'POST',
        body: JSON.stringify(fullEvent({ id: randomUUID(), exception: { type: 'RangeError', value: 'stage test' } })),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { permalink: string }).permalink.split('/').pop() as string;
    };
    const issueId = await post();
    const states = await databaseOf(svc.service.host).reader().runAndReadAll('SELECT status, opened_by FROM issue_states WHERE id = ?', [issueId]);
    expect(states.getRows()).toHaveLength(1);
    expect(states.getRows()[0][0]).toBe('unresolved');

    const patch = await svc.api(`/v1/issues/${issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) });
    expect(((await patch.json()) as { status: string }).status).toBe('resolved');
    expect(await post()).toBe(issueId);
    const issue = (await (await svc.api(`/v1/issues/${issueId}`)).json()) as { status: string; count: number };
    expect(issue).toMatchObject({ status: 'regressed', count: 2 });
    const stored = await databaseOf(svc.service.host).reader().runAndReadAll('SELECT status FROM issue_states WHERE id = ?', [issueId]);
    expect(stored.getRows()[0][0]).toBe('regressed');
  });
});
