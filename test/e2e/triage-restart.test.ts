// Assignments are catalog rows: they survive a restart of the service on the same data directory,
// as do bulk status changes, and the list still filters by them.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, tempDir, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

const started: TestService[] = [];

afterAll(async () => {
  for (const svc of started) await svc.stop().catch(() => undefined);
});

describe('triage across a restart', () => {
  it('keeps assignees and bulk statuses', { timeout: 90_000 }, async () => {
    const dataDir = tempDir();
    const first = await startService({ dataDir, keepData: true });
    started.push(first);
    await createUser(first, 'keeper@example.com', 'member');
    const issueIds: string[] = [];
    for (const name of ['One', 'Two']) {
      const res = await first.api('/v1/events', {
        method: 'POST',
        body: JSON.stringify(
          fullEvent({ id: randomUUID(), exception: { type: `${name}Error`, value: name, stacktrace: [{ filename: `${name}.js`, lineno: 1 }] } }),
        ),
      });
      expect(res.status).toBe(202);
      issueIds.push(((await res.json()) as { permalink: string }).permalink.split('/').pop()!);
    }
    const bulk = await first.api(`/v1/issues?project_id=default&id=${issueIds[0]}&id=${issueIds[1]}`, {
      method: 'PATCH',
      body: JSON.stringify({ assignee: 'keeper@example.com', status: 'ignored' }),
    });
    expect(await bulk.json()).toEqual({ updated: 2 });
    const unassign = await first.api(`/v1/issues/${issueIds[1]}`, { method: 'PATCH', body: JSON.stringify({ assignee: null }) });
    expect(unassign.status).toBe(200);
    await first.stop();
    started.pop();

    const second = await startService({ dataDir, keys: { live: first.liveKey, test: first.testKey } });
    started.push(second);
    const one = (await (await second.api(`/v1/issues/${issueIds[0]}`)).json()) as { status: string; assignee: { email: string } | null };
    expect([one.status, one.assignee?.email]).toEqual(['ignored', 'keeper@example.com']);
    const two = (await (await second.api(`/v1/issues/${issueIds[1]}`)).json()) as { status: string; assignee: unknown };
    expect([two.status, two.assignee]).toEqual(['ignored', null]);
    const listed = (await (await second.api('/v1/issues?project_id=default&assignee=keeper@example.com')).json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((i) => i.id)).toEqual([issueIds[0]]);
    const searched = (await (await second.api(`/v1/issues?project_id=default&query=${encodeURIComponent('is:ignored assigned:none')}`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(searched.data.map((i) => i.id)).toEqual([issueIds[1]]);
  });
});
