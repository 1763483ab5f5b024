// Issue #32: version 3 must not split the issues version 2 opened, as version 2 did not split
// version 1's (grouping-upgrade.test.ts). A project on version 2 moves to version 3 at start;
// during the transition its events also compute the frozen version 2's hash (legacy/v2), land in
// the old issue, and record an alias that keeps them there after the transition ends.
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import type { ErrorEvent } from '../../src/records/event.js';
import { issueIdFor } from '../../src/records/issue-id.js';
import { Database } from '../../extensions/duckdb/database.js';
import { groupingHash } from '../../processors/grouping/fingerprint.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { groupingVersionsOf } from '../../extensions/issues/index.js';

const dataDir = tempDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** One Rails bug on two Ruby versions: version 2 splits them (`block in Order#apply_discount` in 3.4), version 3 does not. */
function checkoutError(build: 'old' | 'new', timestamp: string): Record<string, unknown> {
  return {
    timestamp,
    environment: 'production',
    release: `shop@${build === 'old' ? '1.0.0' : '1.1.0'}`,
    platform: 'ruby',
    exception: {
      type: 'NoMethodError',
      value: "undefined method 'amount' for nil",
      stacktrace: [
        { filename: 'app/controllers/orders_controller.rb', function: build === 'old' ? 'create' : 'OrdersController#create', lineno: 24, in_app: true },
        { filename: 'app/models/order.rb', function: build === 'old' ? 'block in apply_discount' : 'block in Order#apply_discount', lineno: 63, in_app: true },
      ],
    },
  };
}

function anotherError(timestamp: string): Record<string, unknown> {
  return {
    ...checkoutError('new', timestamp),
    exception: { type: 'TypeError', value: "nil can't be coerced into Integer", stacktrace: [{ filename: 'cart.rb', function: 'total', in_app: true }] },
  };
}

async function post(svc: TestService, body: Record<string, unknown>): Promise<string> {
  const response = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(202);
  const { permalink } = (await response.json()) as { permalink: string };
  return permalink.slice(permalink.lastIndexOf('/') + 1);
}

async function catalog(run: (db: Database) => Promise<void>): Promise<void> {
  const db = await Database.open(dataDir);
  try {
    await run(db);
  } finally {
    await db.close();
  }
}

describe('upgrading the grouping algorithm', () => {
  it('keeps the events of an issue opened by version 2 in it, during the transition and after', async () => {
    let svc = await startService({ dataDir, keepData: true });
    const keys = { live: svc.liveKey, test: svc.testKey };
    const firstIssue = await post(svc, checkoutError('old', '2026-11-01T10:00:00Z'));
    const projectId = ((await (await svc.api('/v1/projects')).json()) as { data: Array<{ id: string }> }).data[0].id;
    await svc.stop();

    // Make it the database of a release that grouped with version 2: the project on version 2, its
    // issue under the version-2 id of that event.
    const tenant = { dataset: 'live' as const, projectId };
    const v2Issue = issueIdFor(tenant, groupingHash(checkoutError('old', '2026-11-01T10:00:00Z') as unknown as ErrorEvent, { version: 2 }));
    expect(v2Issue).not.toBe(firstIssue);
    await catalog(async (db) => {
      await db.write(async (c) => {
        await c.run('DELETE FROM grouping_versions');
        await c.run('INSERT INTO grouping_versions VALUES ($p, 2, NULL, NULL, now())', { p: projectId });
        await c.run('UPDATE issue_states SET id = $v1 WHERE id = $v2', { v1: v2Issue, v2: firstIssue });
      });
    });

    svc = await startService({ dataDir, keepData: true, keys });
    expect(groupingVersionsOf(svc.service.host).of(projectId)).toMatchObject({ version: 3, fallbackVersion: 2 });
    // The same build again: version 3 would open a new issue; the fallback finds the old one.
    expect(await post(svc, checkoutError('old', '2026-11-01T11:00:00Z'))).toBe(v2Issue);
    // Ruby 3.4's labels, which version 2 would have split off: version 3 groups them with the first, whose alias now leads to the old issue.
    expect(await post(svc, checkoutError('new', '2026-11-01T12:00:00Z'))).toBe(v2Issue);
    // A new bug opens a version-3 issue.
    const newIssue = await post(svc, anotherError('2026-11-01T12:30:00Z'));
    expect(newIssue).not.toBe(v2Issue);
    await svc.stop();

    await catalog(async (db) => {
      const rows = (
        await db.reader().runAndReadAll('SELECT version, fallback_version FROM grouping_versions WHERE project_id = $p', { p: projectId })
      ).getRows();
      expect(rows).toEqual([[3, 2]]);
      const aliases = (await db.reader().runAndReadAll('SELECT alias_id, issue_id FROM issue_aliases')).getRows();
      expect(aliases).toEqual([[firstIssue, v2Issue]]);
      // The transition ends.
      await db.write((c) => c.run("UPDATE grouping_versions SET fallback_until = TIMESTAMP '2000-01-01'"));
    });

    svc = await startService({ dataDir, keepData: true, keys });
    expect(await post(svc, checkoutError('new', '2026-11-02T09:00:00Z'))).toBe(v2Issue);
    expect(await post(svc, anotherError('2026-11-02T09:30:00Z'))).toBe(newIssue);
    const issue = (await (await svc.api(`/v1/issues/${v2Issue}?project_id=${projectId}`)).json()) as { count?: number; id?: string };
    expect(issue.id).toBe(v2Issue);
    await svc.stop();
  });
});
