// Triage over the API on a real server (issue #26): assignment (PATCH, the list filter, the
// onAssigned hook), bulk PATCH /v1/issues (all or nothing), and the issue search language with
// its sorts and its 400s that point at the offending token.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssignmentNotice } from '../../extensions/query/issue-triage.js';
import { expectError } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

interface Issue {
  id: string;
  status: string;
  count: number;
  assignee: { id: string; email: string } | null;
}
interface List {
  data: Issue[];
  has_more: boolean;
  next_cursor: string | null;
}

let svc: TestService;
const ids: Record<'alpha' | 'beta' | 'gamma', string> = { alpha: '', beta: '', gamma: '' };
let sandboxIssue = '';
const HOUR = 3600_000;

function errorEvent(name: string, at: number, extra: Record<string, unknown>) {
  return fullEvent({
    id: randomUUID(),
    timestamp: new Date(at).toISOString(),
    exception: {
      type: `${name}Error`,
      value: `${name} failed`,
      stacktrace: [{ filename: `src/${name}.js`, function: `run${name}`, lineno: 3, colno: 1, in_app: true }],
    },
    ...extra,
  });
}

async function ingest(event: Record<string, unknown>, key?: string): Promise<string> {
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event), key });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  return (JSON.parse(text) as { permalink: string }).permalink.split('/').pop()!;
}

async function list(params: string): Promise<List> {
  const res = await svc.api(`/v1/issues?project_id=default&${params}`);
  const text = await res.text();
  expect(res.status, `${params}: ${text}`).toBe(200);
  return JSON.parse(text) as List;
}

/** The names of the seeded issues a query lists, sorted (or in order, for sorts). */
async function names(params: string, ordered = false): Promise<string[]> {
  const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  const found = (await list(params)).data.map((i) => byId.get(i.id)).filter((n): n is string => n !== undefined);
  return ordered ? found : found.sort();
}

const search = (query: string, ordered = false) => names(`query=${encodeURIComponent(query)}`, ordered);
const patch = (path: string, body: unknown) => svc.api(path, { method: 'PATCH', body: JSON.stringify(body) });

beforeAll(async () => {
  svc = await startService();
  await createUser(svc, 'dev@example.com', 'member');
  await createUser(svc, 'ops@example.com', 'admin');
  const now = Date.now();
  // alpha: 3 events by 3 users, an hour ago, production, web@1.0.0, route /checkout.
  for (const [i, email] of ['alice@example.com', 'bob@example.com', 'carol@example.com'].entries())
    ids.alpha = await ingest(
      errorEvent('Alpha', now - HOUR + i, { environment: 'production', release: 'web@1.0.0', tags: { route: '/checkout' }, user: { email } }),
    );
  // beta: one warning three days ago, staging, web@2.0.0, route /cart, its message says "declined".
  ids.beta = await ingest(
    errorEvent('Beta', now - 72 * HOUR, {
      environment: 'staging',
      release: 'web@2.0.0',
      level: 'warning',
      message: 'payment declined',
      tags: { route: '/cart' },
      user: { email: 'bob@example.com' },
    }),
  );
  // gamma: 5 events, no user and no tags, ten minutes ago.
  for (let i = 0; i < 5; i++) ids.gamma = await ingest(errorEvent('Gamma', now - 600_000 + i, { user: undefined, tags: undefined, release: 'web@1.0.0' }));
  sandboxIssue = await ingest(errorEvent('Sandbox', now, {}), svc.testKey);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe('assignment', () => {
  it('PATCH assignee sets and clears it; every issue body carries it; the list filters by it', async () => {
    const res = await patch(`/v1/issues/${ids.alpha}`, { assignee: 'DEV@example.com' });
    const body = (await res.json()) as Issue;
    expect(res.status).toBe(200);
    expect(body.assignee).toEqual({ id: expect.stringMatching(/^usr_/), email: 'dev@example.com' });
    expect(((await (await svc.api(`/v1/issues/${ids.alpha}`)).json()) as Issue).assignee?.email).toBe('dev@example.com');
    expect(await names('assignee=dev@example.com')).toEqual(['alpha']);
    expect(await names('assignee=none')).toEqual(['beta', 'gamma']);
    expect(await search('assigned:dev@example.com')).toEqual(['alpha']);
    expect(await search('assigned:none')).toEqual(['beta', 'gamma']);
    expect(await search('!assigned:none')).toEqual(['alpha']);
    expect(await search('is:assigned')).toEqual(['alpha']);
    expect((await list('')).data.find((i) => i.id === ids.beta)?.assignee).toBeNull();

    // Status and assignee together; then null unassigns.
    const both = (await (await patch(`/v1/issues/${ids.gamma}`, { status: 'ignored', assignee: 'ops@example.com' })).json()) as Issue;
    expect([both.status, both.assignee?.email]).toEqual(['ignored', 'ops@example.com']);
    const cleared = (await (await patch(`/v1/issues/${ids.gamma}`, { assignee: null, status: 'unresolved' })).json()) as Issue;
    expect([cleared.status, cleared.assignee]).toEqual(['unresolved', null]);
  });

  it('an unknown email, a non-string or an empty body is a 400 naming the field; nothing changes', async () => {
    const unknown = await expectError(await patch(`/v1/issues/${ids.beta}`, { assignee: 'nobody@example.com' }), 400, 'validation_failed');
    expect(unknown.error.details[0]).toMatchObject({ path: 'assignee', message: expect.stringContaining('nobody@example.com') });
    const wrongType = await expectError(await patch(`/v1/issues/${ids.beta}`, { assignee: 42 }), 400, 'validation_failed');
    expect(wrongType.error.details[0].path).toBe('assignee');
    await expectError(await patch(`/v1/issues/${ids.beta}`, {}), 400, 'validation_failed');
    // The status of a refused body is not applied either.
    await expectError(await patch(`/v1/issues/${ids.beta}`, { status: 'resolved', assignee: 'nobody@example.com' }), 400, 'validation_failed');
    const beta = (await (await svc.api(`/v1/issues/${ids.beta}`)).json()) as Issue;
    expect([beta.status, beta.assignee]).toEqual(['unresolved', null]);
    const filter = await expectError(await svc.api('/v1/issues?project_id=default&assignee=nobody@example.com'), 400, 'invalid_parameter');
    expect(filter.error.details[0].path).toBe('assignee');
  });

  it('tells onAssigned listeners of each new assignment, with the actor, after it committed', async () => {
    const notices: AssignmentNotice[] = [];
    const triage = svc.service.storage!.triage;
    const stop = triage.onAssigned((notice: AssignmentNotice) => {
      notices.push(notice);
    });
    const failing = triage.onAssigned(() => {
      throw new Error('a listener that fails does not undo the assignment');
    });
    try {
      expect((await patch(`/v1/issues/${ids.beta}`, { assignee: 'ops@example.com' })).status).toBe(200);
      expect((await patch(`/v1/issues/${ids.beta}`, { assignee: 'ops@example.com' })).status).toBe(200); // the same: no notice
      expect((await patch(`/v1/issues/${ids.beta}`, { assignee: null })).status).toBe(200); // unassigned: no notice
    } finally {
      stop();
      failing();
    }
    expect(notices).toHaveLength(1);
    expect(notices[0].issue.id).toBe(ids.beta);
    expect(notices[0].issue.assignee?.email).toBe('ops@example.com');
    expect(notices[0].assignee.email).toBe('ops@example.com');
    expect(notices[0].previous).toBeNull();
    expect(notices[0].actor).toEqual({ kind: 'key', id: expect.stringMatching(/^key_/) });
  });
});

describe('bulk PATCH /v1/issues', () => {
  it('changes every issue named, and answers how many', async () => {
    const res = await patch(`/v1/issues?project_id=default&id=${ids.alpha}&id=${ids.beta}&id=${ids.alpha}`, {
      status: 'resolved',
      assignee: 'ops@example.com',
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ updated: 2 });
    expect(await search('is:resolved')).toEqual(['alpha', 'beta']);
    expect(await names('assignee=ops@example.com')).toEqual(['alpha', 'beta']);
  });

  it('an id outside the key scope (another dataset, or unknown) is a 404 for the whole request: nothing changes', async () => {
    for (const outside of [sandboxIssue, '0123456789abcdef']) {
      const res = await patch(`/v1/issues?project_id=default&id=${ids.gamma}&id=${ids.alpha}&id=${outside}`, {
        status: 'ignored',
        assignee: 'dev@example.com',
      });
      const error = await expectError(res, 404, 'not_found');
      expect(error.error.message).toContain(outside);
    }
    const gamma = (await (await svc.api(`/v1/issues/${ids.gamma}`)).json()) as Issue;
    expect([gamma.status, gamma.assignee]).toEqual(['unresolved', null]);
    expect(await search('is:resolved')).toEqual(['alpha', 'beta']);
  });

  it('takes ids in the body too', async () => {
    const res = await patch(`/v1/issues?project_id=default&id=${ids.gamma}`, { status: 'ignored', ids: [ids.beta] });
    expect(await res.json()).toEqual({ updated: 2 });
    expect(await search('is:ignored')).toEqual(['beta', 'gamma']);
    expect(await (await patch('/v1/issues?project_id=default', { status: 'resolved', ids: [ids.beta] })).json()).toEqual({ updated: 1 });
    expect(await (await patch('/v1/issues?project_id=default', { status: 'unresolved', ids: [ids.gamma] })).json()).toEqual({ updated: 1 });
  });

  it('selects by query', async () => {
    const res = await patch(`/v1/issues?project_id=default&query=${encodeURIComponent('is:resolved level:warning')}`, { status: 'unresolved' });
    expect(await res.json()).toEqual({ updated: 1 });
    expect(await search('is:resolved')).toEqual(['alpha']);
    const none = await patch(`/v1/issues?project_id=default&query=${encodeURIComponent('times_seen:>1000')}`, { status: 'resolved' });
    expect(await none.json()).toEqual({ updated: 0 });
  });

  it('refuses ids and a query together, neither, more than 1,000 ids, a bad query or body', async () => {
    await expectError(await patch(`/v1/issues?project_id=default&id=${ids.alpha}&query=is:resolved`, { status: 'resolved' }), 400, 'invalid_parameter');
    await expectError(await patch('/v1/issues?project_id=default', { status: 'resolved' }), 400, 'invalid_parameter');
    // 1,000 ids do not fit in a URL (16 KiB): the body's `ids` carries them.
    const unknown = Array.from({ length: 997 }, (_, i) => i.toString(16).padStart(16, '0'));
    const thousand = await patch('/v1/issues?project_id=default', { status: 'ignored', ids: [ids.alpha, ids.beta, ids.gamma, ...unknown] });
    expect((await expectError(thousand, 404, 'not_found')).error.message).toContain(unknown[0]);
    const inQuery = ['a', 'b', 'c', 'd'].map((c) => `id=${c.repeat(16)}`).join('&');
    const tooMany = await expectError(await patch(`/v1/issues?project_id=default&${inQuery}`, { status: 'resolved', ids: unknown }), 400, 'invalid_parameter');
    expect(tooMany.error.details[0].path).toBe('id');
    const tooLong = await expectError(
      await patch('/v1/issues?project_id=default', { status: 'resolved', ids: [...unknown, ...unknown] }),
      400,
      'validation_failed',
    );
    expect(tooLong.error.details[0].path).toBe('ids');
    const badQuery = await expectError(await patch('/v1/issues?project_id=default&query=is:sleeping', { status: 'resolved' }), 400, 'invalid_parameter');
    expect(badQuery.error.details[0]).toMatchObject({ path: 'query', position: 3 });
    await expectError(await patch(`/v1/issues?project_id=default&id=${ids.alpha}`, { status: 'closed' }), 400, 'validation_failed');
    await expectError(await patch(`/v1/issues?project_id=default&id=${ids.alpha}`, { assignee: 'nobody@example.com' }), 400, 'validation_failed');
    expect(await search('is:resolved')).toEqual(['alpha']);
  });
});

describe('the search language', () => {
  it('filters by status, level, release, environment, tags, user, times and counts', async () => {
    expect(await search('is:unresolved')).toEqual(['beta', 'gamma']);
    expect(await search('level:warning')).toEqual(['beta']);
    expect(await search('release:web@1.0.0')).toEqual(['alpha', 'gamma']);
    expect(await search('environment:staging')).toEqual(['beta']);
    expect(await search('!environment:staging')).toEqual(['alpha', 'gamma']);
    expect(await search('tags.route:/checkout')).toEqual(['alpha']);
    expect(await search('route:/cart')).toEqual(['beta']); // a bare tag key the project has seen
    expect(await search('tags.route:"/checkout" environment:production')).toEqual(['alpha']);
    expect(await search('user.email:BOB@example.com')).toEqual(['alpha', 'beta']);
    expect(await search('first_seen:>-24h')).toEqual(['alpha', 'gamma']);
    expect(await search(`first_seen:<${new Date(Date.now() - 48 * HOUR).toISOString().slice(0, 10)}`)).toEqual(['beta']);
    expect(await search('last_seen:>=-30m')).toEqual(['gamma']);
    expect(await search('times_seen:>4')).toEqual(['gamma']);
    expect(await search('times_seen:3')).toEqual(['alpha']);
    expect(await search('times_seen:<=3 !times_seen:1')).toEqual(['alpha']);
    expect(await search('has:user')).toEqual(['alpha', 'beta']);
    expect(await search('!has:user')).toEqual(['gamma']);
    expect(await search('has:route')).toEqual(['alpha', 'beta']);
  });

  it('matches free text over title, culprit and message, case-insensitively, quoted or not', async () => {
    expect(await search('"alpha failed"')).toEqual(['alpha']);
    expect(await search('BETA')).toEqual(['beta']);
    expect(await search('declined')).toEqual(['beta']); // the event's message
    expect(await search('runGamma')).toEqual(['gamma']); // the culprit
    expect(await search('failed level:error')).toEqual(['alpha', 'gamma']);
    expect(await search('100%_')).toEqual([]); // LIKE's wildcards are literal
  });

  it('sorts by last_seen, first_seen, events and users, and pages through each', async () => {
    expect(await names('sort=events', true)).toEqual(['gamma', 'alpha', 'beta']);
    expect(await names('sort=users', true)).toEqual(['alpha', 'beta', 'gamma']);
    expect(await names('sort=first_seen', true)).toEqual(['gamma', 'alpha', 'beta']);
    expect(await names('', true)).toEqual(['gamma', 'alpha', 'beta']);
    const walked: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const body: List = await list(`sort=events&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      walked.push(...body.data.map((i) => i.id));
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    expect(walked).toEqual([ids.gamma, ids.alpha, ids.beta]);
    await expectError(await svc.api('/v1/issues?project_id=default&sort=title'), 400, 'invalid_parameter');
  });

  it('answers 400 with the position of the offending token', async () => {
    const cases: Array<[string, number, string]> = [
      ['level:error nosuchkey:x', 12, 'nosuchkey'],
      ['is:sleeping', 3, 'is:'],
      ['assigned:me', 9, 'me'],
      ['first_seen:>yesterday', 11, 'first_seen'],
      ['times_seen:>lots', 11, 'times_seen'],
      ['tags.route:"/checkout', 11, 'quoted'],
      ['has:nosuchfield', 4, 'has:'],
      ['release:', 0, 'release'],
    ];
    for (const [query, position, mentions] of cases) {
      const res = await svc.api(`/v1/issues?project_id=default&query=${encodeURIComponent(query)}`);
      const body = await expectError(res, 400, 'invalid_parameter');
      expect(body.error.details[0], query).toMatchObject({ path: 'query', position });
      expect(body.error.message, query).toContain(mentions);
    }
    const long = await svc.api(`/v1/issues?project_id=default&query=${'a'.repeat(1025)}`);
    await expectError(long, 400, 'invalid_parameter');
  });
});
