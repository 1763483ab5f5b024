// "Ignore until" end to end: PATCH /v1/issues/{id} with each condition on the real service, events
// over HTTP, the issue back to unresolved once N more events, U more distinct users, M minutes (a
// controlled clock) or a time arrive, regression rules notifying a real local receiver, and the
// condition and its progress kept across a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssueEscalation } from '../../extensions/issues/issue-ignores.js';
import { alertingYaml, createRule, errorEvent } from '../support/alerts.js';
import { expectError } from '../support/http.js';
import { until as eventually } from '../support/kafka-roles.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { issueStatesOf } from '../../extensions/issues/index.js';

const yaml = alertingYaml().replace('  issues: {}', '  issues:\n    ignore_check_interval_ms: 100');

interface IssueBody {
  id: string;
  status: string;
  permalink: string;
  ignore_until: Record<string, unknown> | null;
}

let svc: TestService;
let hook: Receiver;
const escalations: IssueEscalation[] = [];
beforeAll(async () => {
  [svc, hook] = await Promise.all([startService({ yaml }), startReceiver()]);
  issueStatesOf(svc.service.host).ignores.onEscalated((e) => void escalations.push(e));
  await createRule(svc, { name: 'Back again', type: 'regression', actions: [{ type: 'webhook', url: `${hook.url}/regression` }] });
});
afterAll(async () => {
  await svc.stop();
  await hook.close();
});

async function postEvent(target: TestService, body: Record<string, unknown>): Promise<string> {
  const res = await target.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  const { permalink } = (await res.json()) as { permalink: string };
  return permalink.slice(permalink.lastIndexOf('/') + 1);
}

async function issue(target: TestService, id: string): Promise<IssueBody> {
  const res = await target.api(`/v1/issues/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as IssueBody;
}

async function ignore(target: TestService, id: string, until: Record<string, unknown>): Promise<IssueBody> {
  const res = await target.api(`/v1/issues/${id}`, { method: 'PATCH', body: JSON.stringify({ status: 'ignored', ignore_until: until }) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as IssueBody;
}

const escalatedNotices = (issueId: string) =>
  hook.requests.filter((r) => r.path === '/regression' && (r.json.issue as { id?: string } | null)?.id === issueId && r.json.transition === 'escalated');

describe('PATCH ignore_until', () => {
  it('refuses bad shapes with 400 naming the field', async () => {
    const id = await postEvent(svc, errorEvent());
    const cases: Array<[unknown, string, string?]> = [
      [{ count: 0 }, 'ignore_until.count'],
      [{ count: 1.5 }, 'ignore_until.count'],
      [{ minutes: 'ten' }, 'ignore_until.minutes'],
      [{ users: 10_001 }, 'ignore_until.users'],
      [{ until: 'tomorrow' }, 'ignore_until.until'],
      [{ until: '2020-01-01T00:00:00Z' }, 'ignore_until.until'],
      [{ count: 1, minutes: 5 }, 'ignore_until'],
      [{ days: 1 }, 'ignore_until'],
      [[], 'ignore_until'],
      [{ count: 3 }, 'ignore_until', 'resolved'],
    ];
    for (const [until, path, status = 'ignored'] of cases) {
      const res = await svc.api(`/v1/issues/${id}`, { method: 'PATCH', body: JSON.stringify({ status, ignore_until: until }) });
      const body = await expectError(res, 400, 'validation_failed');
      expect(
        body.error.details.map((d) => d.path),
        JSON.stringify(until),
      ).toEqual([path]);
    }
    expect((await issue(svc, id)).status).toBe('unresolved');
  });

  it('shows the condition while ignored and drops it when the status changes by hand', async () => {
    const id = await postEvent(svc, errorEvent());
    const ignored = await ignore(svc, id, { minutes: 30 });
    expect(ignored.status).toBe('ignored');
    const since = Date.parse(ignored.ignore_until?.ignored_at as string);
    expect(ignored.ignore_until).toMatchObject({ minutes: 30 });
    expect(Date.parse(ignored.ignore_until?.ends_at as string) - since).toBe(30 * 60_000);
    const res = await svc.api(`/v1/issues/${id}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) });
    expect(((await res.json()) as IssueBody).ignore_until).toBeNull();
    // Resolved by hand: the old condition no longer returns it.
    expect(await issueStatesOf(svc.service.host).ignores.escalateDue(Date.now() + 31 * 60_000)).toEqual([]);
    expect((await issue(svc, id)).status).toBe('resolved');
  });
});

describe('bulk PATCH /v1/issues', () => {
  it('ignores every issue named until its own condition is met', async () => {
    const a = await postEvent(svc, errorEvent({}, 'BulkIgnoreA'));
    const b = await postEvent(svc, errorEvent({}, 'BulkIgnoreB'));
    const res = await svc.api(`/v1/issues?project_id=default&id=${a}&id=${b}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'ignored', ignore_until: { count: 1 } }),
    });
    expect(res.status, await res.text()).toBe(200);
    for (const id of [a, b]) expect((await issue(svc, id)).ignore_until).toMatchObject({ count: 1 });
    await postEvent(svc, errorEvent({}, 'BulkIgnoreA'));
    expect((await issue(svc, a)).status).toBe('unresolved');
    expect((await issue(svc, b)).status).toBe('ignored');
  });
});

describe('ignore until', () => {
  it('{count: N}: the Nth event after ignoring returns the issue and fires regression rules', async () => {
    const type = 'IgnoreCountError';
    const id = await postEvent(svc, errorEvent({}, type));
    expect((await ignore(svc, id, { count: 3 })).ignore_until).toMatchObject({ count: 3 });
    await postEvent(svc, errorEvent({}, type));
    await postEvent(svc, errorEvent({}, type));
    expect((await issue(svc, id)).status).toBe('ignored');
    const last = await postEvent(svc, errorEvent({}, type));
    expect(last).toBe(id);
    const back = await issue(svc, id);
    expect(back.status).toBe('unresolved');
    expect(back.ignore_until).toBeNull();
    const [notice] = await hook.waitFor(1, (r) => escalatedNotices(id).includes(r));
    expect(notice.json).toMatchObject({ rule: { type: 'regression' }, state: 'firing', issue: { id, status: 'unresolved', permalink: back.permalink } });
    expect(escalations.find((e) => e.issueId === id)).toMatchObject({ cause: 'event', condition: { count: 3 }, projectId: 'default', dataset: 'live' });
    // Unresolved now: more events do not notify again.
    await postEvent(svc, errorEvent({}, type));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(escalatedNotices(id)).toHaveLength(1);
  });

  it('{users: U}: U more distinct users return it; repeats and events without a user do not', async () => {
    const type = 'IgnoreUsersError';
    const id = await postEvent(svc, errorEvent({ user: { id: 'u0' } }, type));
    await ignore(svc, id, { users: 2 });
    for (let i = 0; i < 3; i++) await postEvent(svc, errorEvent({ user: { id: 'u1' } }, type));
    await postEvent(svc, errorEvent({}, type));
    expect((await issue(svc, id)).status).toBe('ignored');
    await postEvent(svc, errorEvent({ user: { email: 'grace@example.com' } }, type));
    expect((await issue(svc, id)).status).toBe('unresolved');
    await hook.waitFor(1, (r) => escalatedNotices(id).includes(r));
  });

  it('{minutes: M}: returns once M minutes have passed (controlled clock), not before', async () => {
    const type = 'IgnoreMinutesError';
    const id = await postEvent(svc, errorEvent({}, type));
    const ignored = await ignore(svc, id, { minutes: 10 });
    const since = Date.parse(ignored.ignore_until?.ignored_at as string);
    const ignores = issueStatesOf(svc.service.host).ignores;
    expect((await ignores.escalateDue(since + 9 * 60_000)).map((e) => e.issueId)).not.toContain(id);
    await postEvent(svc, errorEvent({}, type)); // an event before the time does not return it
    expect((await issue(svc, id)).status).toBe('ignored');
    const due = await ignores.escalateDue(since + 10 * 60_000);
    expect(due.find((e) => e.issueId === id)).toMatchObject({ cause: 'time', condition: { minutes: 10 } });
    expect((await issue(svc, id)).status).toBe('unresolved');
    const [notice] = await hook.waitFor(1, (r) => escalatedNotices(id).includes(r));
    expect(notice.json).toMatchObject({ issue: { id, title: expect.stringContaining(type), count: 2 }, event: null });
  });

  it('{until: time}: returns when that time comes, on the processor timer', async () => {
    const type = 'IgnoreUntilError';
    const id = await postEvent(svc, errorEvent({}, type));
    const until = new Date(Date.now() + 1500).toISOString();
    expect((await ignore(svc, id, { until })).ignore_until).toMatchObject({ until, ends_at: until });
    expect((await issue(svc, id)).status).toBe('ignored');
    await eventually('the issue to return', async () => ((await issue(svc, id)).status === 'unresolved' ? true : undefined));
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
    await hook.waitFor(1, (r) => escalatedNotices(id).includes(r));
  });
});

describe('across a restart', () => {
  it('keeps the condition and the count so far', async () => {
    const dataDir = tempDir();
    const first = await startService({ yaml, dataDir, keepData: true });
    const keys = { live: first.liveKey, test: first.testKey };
    const type = 'IgnoreRestartError';
    const id = await postEvent(first, errorEvent({}, type));
    const usersId = await postEvent(first, errorEvent({ user: { id: 'a' } }, 'IgnoreRestartUsersError'));
    await ignore(first, id, { count: 3 });
    await ignore(first, usersId, { users: 2 });
    await postEvent(first, errorEvent({}, type));
    await postEvent(first, errorEvent({}, type));
    await postEvent(first, errorEvent({ user: { id: 'b' } }, 'IgnoreRestartUsersError'));
    await first.stop();
    const second = await startService({ yaml, dataDir, keys });
    try {
      const kept = await issue(second, id);
      expect(kept.status).toBe('ignored');
      expect(kept.ignore_until).toMatchObject({ count: 3 });
      await postEvent(second, errorEvent({}, type)); // the third since ignoring, counting the two before the restart
      expect((await issue(second, id)).status).toBe('unresolved');
      await postEvent(second, errorEvent({ user: { id: 'b' } }, 'IgnoreRestartUsersError')); // seen before the restart
      expect((await issue(second, usersId)).status).toBe('ignored');
      await postEvent(second, errorEvent({ user: { id: 'c' } }, 'IgnoreRestartUsersError'));
      expect((await issue(second, usersId)).status).toBe('unresolved');
    } finally {
      await second.stop();
    }
  });
});
