// Ingest ids with a shared control plane (Catalog 'hashed'): derived from the project id, so nodes
// creating projects at once agree, and moved on when this node holds the number already.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog, hashedIngestId } from '../../extensions/catalog/catalog.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { tempDir } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

let dir: string;
let db: Database;

beforeAll(async () => {
  dir = tempDir('faultline-ingest-ids-');
  db = await migratedDatabase(dir, ['catalog']);
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hashed ingest ids', () => {
  it('derives the number from the project id, within what the Sentry routes take, and probes past a taken one', async () => {
    const catalog = new Catalog(db, 'hashed');
    await catalog.bootstrap();
    const shop = await catalog.createProject({ id: 'shop', name: 'Shop' });
    expect(shop.ingest_id).toBe(hashedIngestId('shop'));
    expect(String(shop.ingest_id)).toMatch(/^\d{10,15}$/);
    expect(hashedIngestId('shop')).not.toBe(hashedIngestId('shop', 1));
    // Another node's project already holds the number "blog" would get here.
    const other = { ...shop, id: 'other', slug: 'other', public_key: 'f'.repeat(32), ingest_id: hashedIngestId('blog') };
    await catalog.apply({ kind: 'project', project: other });
    const blog = await catalog.createProject({ id: 'blog', name: 'Blog' });
    expect(blog.ingest_id).toBe(hashedIngestId('blog', 1));
    expect((await catalog.projectByIngestId(blog.ingest_id))?.id).toBe('blog');
    expect((await catalog.projectByIngestId(other.ingest_id))?.id).toBe('other');
  });

  it('stays max + 1 on a single node', async () => {
    const single = new Catalog(db);
    const before = Math.max(...(await single.listProjects()).map((p) => p.ingest_id));
    expect((await single.createProject({ id: 'solo', name: 'Solo' })).ingest_id).toBe(before + 1);
  });
});
