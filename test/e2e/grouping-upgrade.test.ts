// Issue #12, item 9: a new grouping version must not split the issues the previous one opened.
// A project that grouped with version 1 moves to the current version (3) at start; during the transition its
// events also compute the version-1 hash, land in the old issue, and record an alias that keeps
// them there after the transition ends.
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

/** One bug as two builds of a Vite app report it: version 1 splits them (hash, receiver), version 2 does not. */
function checkoutError(build: 'old' | 'new', timestamp: string): Record<string, unknown> {
  const file = build === 'old' ? 'https://shop.example.com/assets/index-oaDGsuMU.js' : 'https://shop.example.com/assets/index-Bq2xTwZq.js';
  return {
    timestamp,
    environment: 'production',
    release: `shop@${build === 'old' ? '1.0.0' : '1.1.0'}`,
    platform: 'javascript',
    exception: {
      type: 'TypeError',
      value: 'coupon is null',
      stacktrace: [{ filename: file, function: build === 'old' ? 'CheckoutStore.applyCoupon' : 'applyCoupon', lineno: 40, colno: build === 'old' ? 17 : 19 }],
    },
  };
}

function anotherError(timestamp: string): Record<string, unknown> {
  return {
    ...checkoutError('new', timestamp),
    exception: { type: 'RangeError', value: 'invalid quantity', stacktrace: [{ filename: 'cart.js', function: 'setQuantity' }] },
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
  it('keeps the events of an issue opened by version 1 in it, during the transition and after', async () => {
    let svc = await startService({ dataDir, keepData: true });
    const keys = { live: svc.liveKey, test: svc.testKey };
    const firstIssue = await post(svc, checkoutError('old', '2026-11-01T10:00:00Z'));
    const projectId = ((await (await svc.api('/v1/projects')).json()) as { data: Array<{ id: string }> }).data[0].id;
    await svc.stop();

    // Make it the database of a release that grouped with version 1: the project on version 1, its
    // issue under the version-1 id of that event.
    const tenant = { dataset: 'live' as const, projectId };
    const v1Issue = issueIdFor(tenant, groupingHash(checkoutError('old', '2026-11-01T10:00:00Z') as unknown as ErrorEvent, { version: 1 }));
    expect(v1Issue).not.toBe(firstIssue);
    await catalog(async (db) => {
      await db.write(async (c) => {
        // As migration 7 leaves the projects of an older database.
        await c.run('DELETE FROM grouping_versions');
        await c.run('INSERT INTO grouping_versions VALUES ($p, 1, NULL, NULL, now())', { p: projectId });
        await c.run('UPDATE issue_states SET id = $v1 WHERE id = $v2', { v1: v1Issue, v2: firstIssue });
      });
    });

    svc = await startService({ dataDir, keepData: true, keys });
    expect(groupingVersionsOf(svc.service.host).of(projectId)).toMatchObject({ version: 3, fallbackVersion: 1 });
    // The same build again: version 2 would open a new issue; the fallback finds the old one.
    expect(await post(svc, checkoutError('old', '2026-11-01T11:00:00Z'))).toBe(v1Issue);
    // A new build that version 1 would have split off: version 2 groups it with the first, whose alias now leads to the old issue.
    expect(await post(svc, checkoutError('new', '2026-11-01T12:00:00Z'))).toBe(v1Issue);
    // A new bug opens a version-2 issue.
    const newIssue = await post(svc, anotherError('2026-11-01T12:30:00Z'));
    expect(newIssue).not.toBe(v1Issue);
    await svc.stop();

    await catalog(async (db) => {
      const rows = (
        await db.reader().runAndReadAll('SELECT version, fallback_version FROM grouping_versions WHERE project_id = $p', { p: projectId })
      ).getRows();
      expect(rows).toEqual([[3, 1]]);
      const aliases = (await db.reader().runAndReadAll('SELECT alias_id, issue_id FROM issue_aliases')).getRows();
      expect(aliases).toEqual([[firstIssue, v1Issue]]);
      // The transition ends.
      await db.write((c) => c.run("UPDATE grouping_versions SET fallback_until = TIMESTAMP '2000-01-01'"));
    });

    svc = await startService({ dataDir, keepData: true, keys });
    expect(await post(svc, checkoutError('new', '2026-11-02T09:00:00Z'))).toBe(v1Issue);
    expect(await post(svc, anotherError('2026-11-02T09:30:00Z'))).toBe(newIssue);
    const issue = (await (await svc.api(`/v1/issues/${v1Issue}?project_id=${projectId}`)).json()) as { count?: number; id?: string };
    expect(issue.id).toBe(v1Issue);
    await svc.stop();
  });
});
