// Comments and the activity timeline on a real server (issue #26): who did what to an issue and
// when, newest first, from the API, the issues processor and merges.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Ack } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

interface Entry {
  id: string;
  issue_id: string;
  kind: string;
  actor: { type: string; id?: string };
  data: Record<string, unknown>;
  at: string;
}
interface Page {
  data: Entry[];
  has_more: boolean;
  next_cursor: string | null;
}

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const send = (path: string, method: string, body: unknown) => svc.api(path, { method, body: JSON.stringify(body) });

async function ingest(name: string): Promise<string> {
  const event = fullEvent({
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    exception: { type: `${name}Error`, value: 'boom', stacktrace: [{ filename: `src/${name}.js`, function: name, lineno: 1, colno: 1, in_app: true }] },
  });
  const res = await send('/v1/events', 'POST', event);
  expect(res.status).toBe(202);
  return ((await res.json()) as Ack).permalink.split('/').pop()!;
}

async function activity(issue: string, query = ''): Promise<Page> {
  const res = await svc.api(`/v1/issues/${issue}/activity${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

describe('comments and activity', () => {
  it('records comments, status changes, regressions and merges, newest first, each with its actor', async () => {
    const issue = await ingest('Timeline');
    const other = await ingest('Absorbed');

    const comment = await send(`/v1/issues/${issue}/comments`, 'POST', { text: 'Looks like **the cart**. <script>alert(1)</script>' });
    expect(comment.status).toBe(201);
    const made = (await comment.json()) as Entry;
    expect(made).toMatchObject({ issue_id: issue, kind: 'comment', data: { text: 'Looks like **the cart**. <script>alert(1)</script>' } });
    expect(made.actor.type).toBe('key');
    expect(made.actor.id).toMatch(/^key_/);

    expect((await send(`/v1/issues/${issue}`, 'PATCH', { status: 'resolved' })).status).toBe(200);
    // The same status again changes nothing, and records nothing.
    expect((await send(`/v1/issues/${issue}`, 'PATCH', { status: 'resolved' })).status).toBe(200);
    // An event of the resolved issue regresses it: the service records that, as `system`.
    expect(await ingest('Timeline')).toBe(issue);
    expect((await send(`/v1/issues/${issue}/merge`, 'POST', { issue_ids: [other] })).status).toBe(200);

    const page = await activity(issue);
    expect(page.data.map((e) => e.kind)).toEqual(['merged', 'regressed', 'status', 'comment', 'first_seen']);
    const [merged, regressed, status, , first] = page.data;
    expect(merged.data).toMatchObject({ issue_ids: [other], fingerprints: [other] });
    expect(merged.actor).toEqual(made.actor);
    expect(regressed.actor).toEqual({ type: 'system' });
    expect(status.data).toEqual({ status: 'resolved', previous: 'unresolved' });
    expect(first.actor).toEqual({ type: 'system' });
    const times = page.data.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(page.has_more).toBe(false);
    // The merged issue's own timeline says where it went.
    const source = await activity(other);
    expect(source.data[0]).toMatchObject({ kind: 'merged_into', data: { issue_id: issue } });

    // Pages: two at a time, the cursor continues where the page ended.
    const one = await activity(issue, '?limit=2');
    expect(one.data.map((e) => e.kind)).toEqual(['merged', 'regressed']);
    expect(one.has_more).toBe(true);
    const two = await activity(issue, `?limit=2&cursor=${one.next_cursor}`);
    expect(two.data.map((e) => e.kind)).toEqual(['status', 'comment']);
    const three = await activity(issue, `?limit=2&cursor=${two.next_cursor}`);
    expect(three.data.map((e) => e.kind)).toEqual(['first_seen']);
    expect(three.has_more).toBe(false);
  });

  it('refuses bad comments and unknown issues with the documented errors', async () => {
    const issue = await ingest('Refusals');
    await expectError(await send(`/v1/issues/${issue}/comments`, 'POST', { text: '   ' }), 400, 'validation_failed');
    await expectError(await send(`/v1/issues/${issue}/comments`, 'POST', { text: 'x'.repeat(10_001) }), 400, 'validation_failed');
    await expectError(await send(`/v1/issues/${issue}/comments`, 'POST', { words: 'hi' }), 400, 'validation_failed');
    await expectError(await send('/v1/issues/0123456789abcdef/comments', 'POST', { text: 'hi' }), 404, 'not_found');
    await expectError(await svc.api('/v1/issues/0123456789abcdef/activity'), 404, 'not_found');
    await expectError(await svc.api(`/v1/issues/${issue}/activity?cursor=zzz`), 400, 'invalid_parameter');
    // Another dataset's key does not reach it.
    await expectError(await svc.api(`/v1/issues/${issue}/activity`, { key: svc.testKey }), 404, 'not_found');
    expect((await activity(issue)).data.map((e) => e.kind)).toEqual(['first_seen']);
  });
  it('records each issue of a bulk status change in its own activity', async () => {
    const [a, b] = [await ingest('BulkOne'), await ingest('BulkTwo')];
    const res = await send(`/v1/issues?project_id=default&id=${a}&id=${b}`, 'PATCH', { status: 'resolved' });
    expect(res.status).toBe(200);
    for (const issue of [a, b]) {
      const [latest] = (await activity(issue)).data;
      expect(latest).toMatchObject({ issue_id: issue, kind: 'status', actor: { type: 'key' } });
      expect(JSON.stringify(latest.data)).toContain('resolved');
    }
  });
});
