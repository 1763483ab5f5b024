// End to end: grouping into issues, the issue reads, the permalink and status changes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { expectError, type Ack } from '../support/http.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
});

interface Issue {
  id: string;
  project_id: string;
  title: string;
  status: string;
  count: number;
  first_seen: string;
  last_seen: string;
  first_release: string;
  last_release: string;
  permalink: string;
  [key: string]: unknown;
}

async function ingest(event: Record<string, unknown>): Promise<Ack & { issueId: string }> {
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event) });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  const ack = JSON.parse(text) as Ack;
  const match = /^http:\/\/faultline\.test\/issues\/([^/]+)$/.exec(ack.permalink);
  expect(match, ack.permalink).not.toBeNull();
  return { ...ack, issueId: match![1] };
}

async function getJson<T>(path: string): Promise<T> {
  const res = await svc.api(path);
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text) as T;
}

async function patch(id: string, body: unknown): Promise<Response> {
  return svc.api(`/v1/issues/${id}`, { method: 'PATCH', body: JSON.stringify(body) });
}

async function setStatus(id: string, status: string): Promise<Issue> {
  const res = await patch(id, { status });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Issue;
}

/** A distinct error (its own type and frames), at `timestamp`, in `release`, thrown at `line`:`col`. */
function errorEvent(name: string, options: { timestamp: string; release?: string; line?: number; col?: number; value?: string }) {
  return fullEvent({
    id: randomUUID(),
    timestamp: options.timestamp,
    release: options.release ?? 'web@1.0.0',
    environment: 'issues',
    exception: {
      type: `${name}Error`,
      value: options.value ?? `${name} went wrong`,
      stacktrace: [
        { filename: 'node_modules/lib/index.js', function: 'dispatch', lineno: 10, colno: 1, in_app: false },
        { filename: `src/${name}.js`, function: `handle${name}`, lineno: options.line ?? 42, colno: options.col ?? 7, in_app: true },
      ],
    },
  });
}

describe('grouping over HTTP', () => {
  it('groups one error seen in two releases at different lines into one issue', async () => {
    const first = await ingest(errorEvent('Group', { timestamp: '2026-05-01T10:00:00.000Z', release: 'web@1.0.0', line: 42, col: 7 }));
    const second = await ingest(errorEvent('Group', { timestamp: '2026-05-02T11:30:00.250Z', release: 'web@1.1.0', line: 57, col: 19 }));
    expect(second.issueId).toBe(first.issueId);

    const issue = await getJson<Issue>(`/v1/issues/${first.issueId}`);
    expect(issue.id).toBe(first.issueId);
    expect(issue.project_id).toBe('default');
    expect(issue.count).toBe(2);
    expect(issue.first_release).toBe('web@1.0.0');
    expect(issue.last_release).toBe('web@1.1.0');
    expect(Date.parse(issue.first_seen)).toBeLessThanOrEqual(Date.parse(issue.last_seen));
    expect(Date.parse(issue.first_seen)).toBe(Date.parse('2026-05-01T10:00:00.000Z'));
    expect(Date.parse(issue.last_seen)).toBe(Date.parse('2026-05-02T11:30:00.250Z'));
    expect(issue.status).toBe('unresolved');
    expect(issue.title).toContain('GroupError');
    expect(issue.permalink).toBe(`http://faultline.test/issues/${first.issueId}`);

    // Both events carry the issue id.
    for (const ack of [first, second]) {
      const event = await getJson<{ issue_id: string }>(`/v1/events/${ack.id}`);
      expect(event.issue_id).toBe(first.issueId);
    }
  });

  it('keeps first_release when an older event arrives late', async () => {
    const newer = await ingest(errorEvent('Late', { timestamp: '2026-05-10T10:00:00.000Z', release: 'web@2.0.0' }));
    const older = await ingest(errorEvent('Late', { timestamp: '2026-05-09T10:00:00.000Z', release: 'web@1.9.0' }));
    expect(older.issueId).toBe(newer.issueId);
    const issue = await getJson<Issue>(`/v1/issues/${newer.issueId}`);
    expect(issue.count).toBe(2);
    expect(issue.first_release).toBe('web@1.9.0');
    expect(issue.last_release).toBe('web@2.0.0');
    expect(Date.parse(issue.first_seen)).toBe(Date.parse('2026-05-09T10:00:00.000Z'));
    expect(Date.parse(issue.last_seen)).toBe(Date.parse('2026-05-10T10:00:00.000Z'));
  });

  it('counts every one of many concurrent events of one error', async () => {
    const acks = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        ingest(errorEvent('Burst', { timestamp: new Date(Date.UTC(2026, 4, 20, 10, 0, i)).toISOString(), release: `web@1.0.${i % 3}`, line: i })),
      ),
    );
    const issueIds = new Set(acks.map((a) => a.issueId));
    expect(issueIds.size).toBe(1);
    const issue = await getJson<Issue>(`/v1/issues/${acks[0].issueId}`);
    expect(issue.count).toBe(30);
    expect(issue.first_release).toBe('web@1.0.0');
    expect(issue.last_release).toBe('web@1.0.2'); // i = 29
    expect(Date.parse(issue.first_seen)).toBe(Date.UTC(2026, 4, 20, 10, 0, 0));
    expect(Date.parse(issue.last_seen)).toBe(Date.UTC(2026, 4, 20, 10, 0, 29));
  });

  it('puts a different error into a different issue', async () => {
    const a = await ingest(errorEvent('Alpha', { timestamp: '2026-05-03T10:00:00.000Z' }));
    const b = await ingest(errorEvent('Beta', { timestamp: '2026-05-03T10:00:01.000Z' }));
    expect(b.issueId).not.toBe(a.issueId);
    expect((await getJson<Issue>(`/v1/issues/${a.issueId}`)).count).toBe(1);
    expect((await getJson<Issue>(`/v1/issues/${b.issueId}`)).count).toBe(1);
  });

  it('/v1/events?issue_id= lists the events of the issue', async () => {
    const e1 = await ingest(errorEvent('Listed', { timestamp: '2026-05-04T10:00:00.000Z' }));
    const e2 = await ingest(errorEvent('Listed', { timestamp: '2026-05-04T11:00:00.000Z', line: 3 }));
    const e3 = await ingest(errorEvent('Listed', { timestamp: '2026-05-04T12:00:00.000Z', release: 'web@9.9.9' }));
    const other = await ingest(errorEvent('Unlisted', { timestamp: '2026-05-04T11:30:00.000Z' }));
    expect(new Set([e1.issueId, e2.issueId, e3.issueId]).size).toBe(1);
    expect(other.issueId).not.toBe(e1.issueId);
    const page = await getJson<{ data: Array<{ id: string; issue_id: string }> }>(`/v1/events?project_id=default&issue_id=${e1.issueId}`);
    expect(page.data.map((e) => e.id)).toEqual([e3.id, e2.id, e1.id]);
    expect(page.data.every((e) => e.issue_id === e1.issueId)).toBe(true);
  });
});

describe('issue reads', () => {
  it('GET /v1/issues lists issues most recently seen first, with permalinks', async () => {
    // Newer than every other event of this file (fixtures are dated 2026-11-01), not in the future.
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
    const older = await ingest(errorEvent('OrderOld', { timestamp: hoursAgo(3) }));
    const newest = await ingest(errorEvent('OrderNew', { timestamp: hoursAgo(1) }));
    const middle = await ingest(errorEvent('OrderMid', { timestamp: hoursAgo(2) }));
    const page = await getJson<{ data: Issue[]; has_more: boolean; next_cursor: string | null }>('/v1/issues?project_id=default&limit=1000');
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    const ids = page.data.map((i) => i.id);
    expect(ids.slice(0, 3)).toEqual([newest.issueId, middle.issueId, older.issueId]);
    for (const issue of page.data) {
      expect(issue.permalink).toBe(`http://faultline.test/issues/${issue.id}`);
      expect(issue.project_id).toBe('default');
    }
    const lastSeen = page.data.map((i) => Date.parse(i.last_seen));
    expect([...lastSeen].sort((a, b) => b - a)).toEqual(lastSeen);
  });

  it('GET /v1/issues paginates with limit and cursor', async () => {
    const all = (await getJson<{ data: Issue[] }>('/v1/issues?project_id=default&limit=1000')).data.map((i) => i.id);
    expect(all.length).toBeGreaterThan(3);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Issue[]; has_more: boolean; next_cursor: string | null } = await getJson(
        `/v1/issues?project_id=default&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      walked.push(...page.data.map((i) => i.id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(walked).toEqual(all);
  });

  it('GET /v1/issues/{id} and the permalink /issues/{id} answer the same issue', async () => {
    const ack = await ingest(errorEvent('Permalink', { timestamp: '2026-05-05T10:00:00.000Z' }));
    const viaApi = await getJson<Issue>(`/v1/issues/${ack.issueId}`);
    const permalinkPath = new URL(ack.permalink).pathname;
    expect(permalinkPath).toBe(`/issues/${ack.issueId}`);
    const viaPermalink = await getJson<Issue>(permalinkPath);
    expect(viaPermalink).toEqual(viaApi);
    expect(viaApi.id).toBe(ack.issueId);
    expect(viaApi.count).toBe(1);
    // The permalink needs a key too.
    const res = await svc.api(permalinkPath, { key: null });
    await expectError(res, 401, 'unauthorized');
  });

  it('an unknown issue id: 404 on the API and the permalink', async () => {
    await expectError(await svc.api('/v1/issues/0123456789abcdef'), 404, 'not_found');
    await expectError(await svc.api('/issues/0123456789abcdef'), 404, 'not_found');
  });

  it('refuses an unknown status filter, a bad limit and a bad cursor with 400 invalid_parameter', async () => {
    for (const query of ['status=bogus', 'limit=0', 'limit=1001', 'limit=abc', 'cursor=garbage']) {
      const body = await expectError(await svc.api(`/v1/issues?project_id=default&${query}`), 400, 'invalid_parameter');
      expect(body.error.details.map((d) => d.path)).toEqual([query.split('=')[0]]);
    }
  });
});

describe('issue status', () => {
  it('resolved, then a new event: regressed', async () => {
    const ack = await ingest(errorEvent('Regress', { timestamp: '2026-06-01T10:00:00.000Z' }));
    const resolved = await setStatus(ack.issueId, 'resolved');
    expect(resolved.id).toBe(ack.issueId);
    expect(resolved.status).toBe('resolved');
    expect(resolved.permalink).toBe(`http://faultline.test/issues/${ack.issueId}`);
    expect((await getJson<Issue>(`/v1/issues/${ack.issueId}`)).status).toBe('resolved');

    const again = await ingest(errorEvent('Regress', { timestamp: '2026-06-02T10:00:00.000Z', release: 'web@1.0.1' }));
    expect(again.issueId).toBe(ack.issueId);
    const issue = await getJson<Issue>(`/v1/issues/${ack.issueId}`);
    expect(issue.status).toBe('regressed');
    expect(issue.count).toBe(2);
    expect(issue.last_release).toBe('web@1.0.1');

    // GET /v1/issues?status=regressed filters.
    const regressed = await getJson<{ data: Issue[] }>('/v1/issues?project_id=default&status=regressed');
    expect(regressed.data.map((i) => i.id)).toEqual([ack.issueId]);
    const unresolved = await getJson<{ data: Issue[] }>('/v1/issues?project_id=default&status=unresolved&limit=1000');
    expect(unresolved.data.length).toBeGreaterThan(0);
    expect(unresolved.data.map((i) => i.id)).not.toContain(ack.issueId);
    expect(unresolved.data.every((i) => i.status === 'unresolved')).toBe(true);

    // Back to unresolved by hand.
    expect((await setStatus(ack.issueId, 'unresolved')).status).toBe('unresolved');
    expect((await getJson<{ data: Issue[] }>('/v1/issues?project_id=default&status=regressed')).data).toEqual([]);
  });

  it('ignored, then a new event: stays ignored', async () => {
    const ack = await ingest(errorEvent('Ignore', { timestamp: '2026-06-03T10:00:00.000Z' }));
    expect((await setStatus(ack.issueId, 'ignored')).status).toBe('ignored');
    await ingest(errorEvent('Ignore', { timestamp: '2026-06-04T10:00:00.000Z' }));
    const issue = await getJson<Issue>(`/v1/issues/${ack.issueId}`);
    expect(issue.status).toBe('ignored');
    expect(issue.count).toBe(2);
    const ignored = await getJson<{ data: Issue[] }>('/v1/issues?project_id=default&status=ignored');
    expect(ignored.data.map((i) => i.id)).toEqual([ack.issueId]);
  });

  it('a resolved issue without new events stays resolved', async () => {
    const ack = await ingest(errorEvent('StaysResolved', { timestamp: '2026-06-05T10:00:00.000Z' }));
    await setStatus(ack.issueId, 'resolved');
    await ingest(errorEvent('SomethingElse', { timestamp: '2026-06-05T11:00:00.000Z' }));
    expect((await getJson<Issue>(`/v1/issues/${ack.issueId}`)).status).toBe('resolved');
  });

  it('PATCH with an invalid status: 400 validation_failed with path status', async () => {
    const ack = await ingest(errorEvent('BadPatch', { timestamp: '2026-06-06T10:00:00.000Z' }));
    for (const body of [{ status: 'bogus' }, { status: 'regressed' }, {}, { status: 1 }]) {
      const error = await expectError(await patch(ack.issueId, body), 400, 'validation_failed');
      expect(error.error.details.map((d) => d.path)).toEqual(['status']);
    }
    await expectError(await svc.api(`/v1/issues/${ack.issueId}`, { method: 'PATCH', body: '{"status":' }), 400, 'invalid_json');
    expect((await getJson<Issue>(`/v1/issues/${ack.issueId}`)).status).toBe('unresolved');
  });

  it('PATCH with a non-JSON content type: 415', async () => {
    const ack = await ingest(errorEvent('TextPatch', { timestamp: '2026-06-08T10:00:00.000Z' }));
    const res = await svc.api(`/v1/issues/${ack.issueId}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'resolved' }),
      headers: { 'content-type': 'text/plain' },
    });
    await expectError(res, 415, 'unsupported_media_type');
    expect((await getJson<Issue>(`/v1/issues/${ack.issueId}`)).status).toBe('unresolved');
  });

  it('PATCH an unknown id: 404', async () => {
    await expectError(await patch('0123456789abcdef', { status: 'resolved' }), 404, 'not_found');
    await expectError(await patch(randomUUID(), { status: 'resolved' }), 404, 'not_found');
  });

  it('PATCH without a key: 401', async () => {
    const ack = await ingest(errorEvent('NoKeyPatch', { timestamp: '2026-06-07T10:00:00.000Z' }));
    const res = await svc.api(`/v1/issues/${ack.issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }), key: null });
    await expectError(res, 401, 'unauthorized');
    expect((await getJson<Issue>(`/v1/issues/${ack.issueId}`)).status).toBe('unresolved');
  });
});
