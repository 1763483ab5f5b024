// Merge and unmerge on a real server (issue #26): the sources' events, counts, times and tags
// become the target's, new events of a source's fingerprint land in the target, a source answers
// merged_into, fingerprints move back out, both are idempotent and survive a restart.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type Ack } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

interface Issue {
  id: string;
  count: number;
  first_seen: string;
  last_seen: string;
  status: string;
  merged_into?: string;
}
interface Fingerprint {
  fingerprint: string;
  count: number;
  last_seen: string;
  merged_from: string | null;
}

let svc: TestService;
const services: TestService[] = [];

beforeAll(async () => {
  svc = await startService({ keepData: true });
  services.push(svc);
});
afterAll(async () => {
  for (const s of services) await s.stop().catch(() => undefined);
});

function errorEvent(name: string, timestamp: string, tags: Record<string, string> = {}) {
  return fullEvent({
    id: randomUUID(),
    timestamp,
    environment: 'triage',
    tags,
    exception: {
      type: `${name}Error`,
      value: `${name} went wrong`,
      stacktrace: [{ filename: `src/${name}.js`, function: `handle${name}`, lineno: 42, colno: 7, in_app: true }],
    },
  });
}

async function ingest(event: Record<string, unknown>, key?: string): Promise<{ id: string; issueId: string }> {
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event), key });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  const ack = JSON.parse(text) as Ack;
  return { id: ack.id, issueId: ack.permalink.split('/').pop()! };
}

async function getJson<T>(path: string): Promise<T> {
  const res = await svc.api(path);
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text) as T;
}

const post = (path: string, body: unknown, key?: string) => svc.api(path, { method: 'POST', body: JSON.stringify(body), key });

async function merge(target: string, sources: string[]): Promise<Issue> {
  const res = await post(`/v1/issues/${target}/merge`, { issue_ids: sources });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Issue;
}

async function unmerge(issue: string, fingerprints: string[]): Promise<string> {
  const res = await post(`/v1/issues/${issue}/unmerge`, { fingerprints });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const body = JSON.parse(text) as { id: string; issue: Issue };
  expect(body.issue.id).toBe(body.id);
  return body.id;
}

const eventIssues = async (issue: string) =>
  (await getJson<{ data: Array<{ id: string; issue_id: string }> }>(`/v1/events?project_id=default&issue_id=${issue}&limit=100`)).data;

describe('merge and unmerge', () => {
  const a: string[] = [];
  const b: string[] = [];
  let A = '';
  let B = '';
  let C = '';

  it('merges an issue into another: events, counts, first and last seen, tags, merged_into', async () => {
    for (const t of ['2026-06-02T10:00:00.000Z', '2026-06-03T10:00:00.000Z']) {
      const e = await ingest(errorEvent('Alpha', t, { side: 'alpha' }));
      a.push(e.id);
      A = e.issueId;
    }
    for (const t of ['2026-06-01T09:00:00.000Z', '2026-06-02T12:00:00.000Z', '2026-06-04T08:00:00.000Z']) {
      const e = await ingest(errorEvent('Beta', t, { side: 'beta' }));
      b.push(e.id);
      B = e.issueId;
    }
    C = (await ingest(errorEvent('Gamma', '2026-06-02T10:00:00.000Z'))).issueId;
    expect(new Set([A, B, C]).size).toBe(3);

    const merged = await merge(A, [B]);
    expect(merged.id).toBe(A);
    expect(merged.count).toBe(5);
    expect(merged.first_seen).toBe('2026-06-01T09:00:00.000Z');
    expect(merged.last_seen).toBe('2026-06-04T08:00:00.000Z');

    // The source answers with the issue it was merged into.
    const source = await getJson<Issue>(`/v1/issues/${B}`);
    expect(source.merged_into).toBe(A);
    expect(source.id).toBe(A);
    expect((await getJson<Issue>(`/v1/issues/${A}`)).merged_into).toBeUndefined();
    // The list shows the target once, with every event; the source is gone from it.
    const list = await getJson<{ data: Issue[] }>('/v1/issues?project_id=default&limit=100');
    expect(list.data.map((i) => i.id)).not.toContain(B);
    expect(list.data.find((i) => i.id === A)?.count).toBe(5);
    // Every event of both is the target's, in the list and one by one.
    const events = await eventIssues(A);
    expect(events.map((e) => e.id).sort()).toEqual([...a, ...b].sort());
    expect(new Set(events.map((e) => e.issue_id))).toEqual(new Set([A]));
    expect((await getJson<{ issue_id: string }>(`/v1/events/${b[0]}`)).issue_id).toBe(A);
    expect(await eventIssues(B)).toEqual([]);
    // Tags of the source's events filter the target's list too.
    const tagged = await getJson<{ data: Array<{ id: string }> }>(`/v1/events?project_id=default&issue_id=${A}&query=tags.side:beta`);
    expect(tagged.data.map((e) => e.id).sort()).toEqual([...b].sort());
  });

  it('is idempotent, and refuses what it cannot do with the documented errors', async () => {
    expect((await merge(A, [B])).count).toBe(5);
    await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: [A] }), 400, 'validation_failed');
    await expectError(await post(`/v1/issues/${B}/merge`, { issue_ids: [C] }), 400, 'validation_failed');
    await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: ['0123456789abcdef'] }), 404, 'not_found');
    await expectError(await post(`/v1/issues/0123456789abcdef/merge`, { issue_ids: [C] }), 404, 'not_found');
    await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: [] }), 400, 'validation_failed');
    await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: ['nope'] }), 400, 'validation_failed');
    await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: 'x' }), 400, 'validation_failed');
    // An issue of another project of the organization: refused, nothing merged.
    await catalogOf(svc.service.host).createProject({ id: 'shop', name: 'Shop' });
    const shop = await ingest({ ...errorEvent('Shop', '2026-06-02T10:00:00.000Z'), project_id: 'shop' });
    const refused = await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: [C, shop.issueId] }), 400, 'validation_failed');
    expect(refused.error.details).toEqual([{ path: 'issue_ids[1]', message: expect.stringContaining('project shop') }]);
    // A sandbox issue is not in the live key's reach: not found, nothing merged.
    const sandbox = await ingest(errorEvent('Sandbox', '2026-06-02T10:00:00.000Z'), svc.testKey);
    await expectError(await post(`/v1/issues/${A}/merge`, { issue_ids: [sandbox.issueId] }), 404, 'not_found');
    expect((await getJson<Issue>(`/v1/issues/${A}`)).count).toBe(5);
    expect((await getJson<Issue>(`/v1/issues/${C}`)).count).toBe(1);
  });

  it("routes a new event of a source's fingerprint to the target", async () => {
    const late = await ingest(errorEvent('Beta', '2026-06-05T08:00:00.000Z', { side: 'beta' }));
    b.push(late.id);
    expect(late.issueId).toBe(A);
    const issue = await getJson<Issue>(`/v1/issues/${A}`);
    expect(issue.count).toBe(6);
    expect(issue.last_seen).toBe('2026-06-05T08:00:00.000Z');
    expect((await getJson<{ issue_id: string }>(`/v1/events/${late.id}`)).issue_id).toBe(A);
  });

  it('lists fingerprints, and unmerges them back to the issue they came from, idempotently', async () => {
    const prints = (await getJson<{ data: Fingerprint[] }>(`/v1/issues/${A}/fingerprints`)).data;
    expect(prints.map((p) => [p.fingerprint, p.count, p.merged_from])).toEqual([
      [B, 4, A === B ? null : B],
      [A, 2, null],
    ]);
    expect(prints[0].last_seen).toBe('2026-06-05T08:00:00.000Z');

    expect(await unmerge(A, [B])).toBe(B);
    expect(await unmerge(A, [B])).toBe(B); // again: the same answer, nothing moved
    expect((await getJson<Issue>(`/v1/issues/${A}`)).count).toBe(2);
    expect((await getJson<Issue>(`/v1/issues/${B}`)).count).toBe(4);
    expect((await getJson<Issue>(`/v1/issues/${B}`)).merged_into).toBeUndefined();
    expect((await eventIssues(B)).map((e) => e.id).sort()).toEqual([...b].sort());
    expect(new Set((await eventIssues(B)).map((e) => e.issue_id))).toEqual(new Set([B]));
    // New events of the fingerprint stay in the issue it went back to.
    expect((await ingest(errorEvent('Beta', '2026-06-05T09:00:00.000Z'))).issueId).toBe(B);
    // An issue keeps one fingerprint; a fingerprint of another issue is refused.
    await expectError(await post(`/v1/issues/${A}/unmerge`, { fingerprints: [A] }), 400, 'validation_failed');
    await expectError(await post(`/v1/issues/${A}/unmerge`, { fingerprints: [C] }), 400, 'validation_failed');
  });

  it("moves an issue's own fingerprint to a new issue, and keeps all of it across a restart", async () => {
    await merge(A, [B]);
    const moved = await unmerge(A, [A]);
    expect([A, B, C]).not.toContain(moved);
    expect(await unmerge(A, [A])).toBe(moved);
    expect((await getJson<Issue>(`/v1/issues/${moved}`)).count).toBe(2);
    expect((await getJson<Issue>(`/v1/issues/${moved}`)).status).toBe('unresolved');
    expect((await getJson<Issue>(`/v1/issues/${A}`)).count).toBe(5);

    const { dataDir, liveKey, testKey } = svc;
    await svc.service.stop();
    svc = await startService({ dataDir, keys: { live: liveKey, test: testKey } });
    services.push(svc);
    expect((await getJson<Issue>(`/v1/issues/${moved}`)).count).toBe(2);
    expect((await getJson<Issue>(`/v1/issues/${A}`)).count).toBe(5);
    expect((await getJson<Issue>(`/v1/issues/${B}`)).merged_into).toBe(A);
    // After the restart, new events still follow the redirects.
    expect((await ingest(errorEvent('Alpha', '2026-06-06T10:00:00.000Z'))).issueId).toBe(moved);
    expect((await ingest(errorEvent('Beta', '2026-06-06T10:00:00.000Z'))).issueId).toBe(A);
    expect((await getJson<Issue>(`/v1/issues/${A}`)).count).toBe(6);
  });
});
