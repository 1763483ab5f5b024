// The catalog's single migration list was split by owner into the extensions' lists, keeping every
// version. A data directory written before the split (built here with the old list, kept as a
// fixture) opens with the extensions: nothing runs again, every version is taken over by its new
// owner with its original time, and what was stored is still there.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../extensions/catalog/index.js';
import { catalogOf } from '../../extensions/catalog/index.js';
import { Database, databaseOf, extensionOwner, migrate } from '../../extensions/duckdb/index.js';
import { issueStatesOf } from '../../extensions/issues/index.js';
import { IssueStates } from '../../extensions/issues/index.js';
import { CATALOG_MIGRATIONS as BEFORE_SPLIT } from '../fixtures/catalog-migrations-before-split.js';
import { EXTENSION_MIGRATIONS } from '../support/migrations.js';
import { tempDir } from '../support/service.js';
import { testHost } from '../support/test-host.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function ledger(db: Database): Promise<Map<string, string>> {
  const rows = (await db.reader().runAndReadAll('SELECT owner, version, CAST(applied_at AS VARCHAR) FROM migrations')).getRows();
  return new Map(rows.map(([owner, version, at]) => [`${owner}:${version}`, String(at)]));
}

describe('extension migrations over a data directory from before the split', () => {
  it('run nothing again, take every version over with its time, and keep the data', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const old = await Database.open(dir);
    await migrate(old, 'catalog', BEFORE_SPLIT, undefined);
    const catalog = new Catalog(old);
    await catalog.bootstrap();
    await catalog.createProject({ id: 'shop', name: 'Shop' });
    const key = await catalog.createKey({ dataset: 'live', projectId: 'shop', name: 'kept' });
    expect(await new IssueStates(old).observe([{ dataset: 'live', projectId: 'shop', issueId: 'iss_1', eventId: 'e1' }])).toEqual(['new']);
    const before = await ledger(old);
    await old.close();

    const opened = await testHost({ dataDir: dir, extensions: Object.keys(EXTENSION_MIGRATIONS) });
    try {
      const db = databaseOf(opened.host);
      const after = await ledger(db);
      // Every version of the old list now belongs to exactly one extension, applied when it first was.
      const all = Object.entries(EXTENSION_MIGRATIONS).flatMap(([type, list]) => list.map((m) => ({ owner: extensionOwner(type), version: m.version })));
      const oldVersions = new Set(BEFORE_SPLIT.map((m) => m.version));
      const owners = all.filter((o) => oldVersions.has(o.version));
      expect(owners.map((o) => o.version).sort((a, b) => a - b)).toEqual([...oldVersions].sort((a, b) => a - b));
      for (const { owner, version } of owners) expect(after.get(`${owner}:${version}`), `${owner}:${version}`).toBe(before.get(`catalog:${version}`));
      // Migrations written after the split (the triage tables) run once, under their owner.
      for (const { owner, version } of all.filter((o) => !oldVersions.has(o.version)))
        expect(after.get(`${owner}:${version}`), `${owner}:${version}`).toBeDefined();
      // The old rows are as they were: nothing was applied again.
      for (const [entry, at] of before) expect(after.get(entry)).toBe(at);
      expect((await catalogOf(opened.host).listProjects()).map((p) => p.id)).toContain('shop');
      expect((await catalogOf(opened.host).listKeys()).map((k) => k.id)).toContain(key.key.id);
      // The issue seen before is known: the same event again is not a new issue.
      expect(await issueStatesOf(opened.host).observe([{ dataset: 'live', projectId: 'shop', issueId: 'iss_1', eventId: 'e2' }])).not.toEqual(['new']);
    } finally {
      await opened.close();
    }
  });
});
