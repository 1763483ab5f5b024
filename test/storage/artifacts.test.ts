// The artifact store on a real DuckDB file and directory: what symbolication looks up (ArtifactLookup),
// content stored once, deletes and expiry that unlink only unreferenced files, and the sweep of
// what a crash leaves.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactScope, ArtifactType } from '../../src/records/artifact.js';
import { ArtifactStore, type NewBundle, type StagedArtifact } from '../../extensions/artifacts/artifacts.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { tempDir } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

let dir: string;
let db: Database;
let store: ArtifactStore;

beforeAll(async () => {
  dir = tempDir('faultline-artifacts-');
  db = await migratedDatabase(dir, ['artifacts']);
  store = new ArtifactStore(db, join(dir, 'artifacts'));
  await store.start();
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha = (content: string) => createHash('sha256').update(content).digest('hex');

function stage(name: string, content: string, type: ArtifactType = 'source_map', debugId: string | null = null): StagedArtifact {
  const path = store.stagingPath();
  writeFileSync(path, content);
  return { name, type, size: Buffer.byteLength(content), sha256: sha(content), debug_id: debugId, source_mapping_url: null, path };
}

function bundle(release: string, files: StagedArtifact[], over: Partial<NewBundle> = {}): NewBundle {
  return { dataset: 'live', projectId: 'web', release, dist: null, files, ...over };
}

/** Every stored content file, by sha256. */
function storedFiles(): string[] {
  const root = store.dir;
  return readdirSync(root)
    .filter((shard) => /^[0-9a-f]{2}$/.test(shard))
    .flatMap((shard) => readdirSync(join(root, shard)))
    .sort();
}

const scope = (release: string, dist: string | null = null, over: Partial<ArtifactScope> = {}): ArtifactScope => ({
  dataset: 'live',
  projectId: 'web',
  release,
  dist,
  ...over,
});

describe('ArtifactStore', () => {
  const DEBUG_ID = '7f3c9a52-1d2e-4b8f-9a0c-5e6f7a8b9c0d';

  it('stores bytes once per content, 0600, at <path>/<sha[0..2]>/<sha>, and leaves no staging file', async () => {
    const { bundle: first, created } = await store.create(bundle('shared@1', [stage('~/a.js.map', '{"shared":1}'), stage('~/b.js.map', '{"shared":1}')]));
    expect(created).toBe(true);
    const { bundle: second } = await store.create(bundle('shared@2', [stage('~/a.js.map', '{"shared":1}')]));
    expect(second.id).not.toBe(first.id);
    const path = join(store.dir, sha('{"shared":1}').slice(0, 2), sha('{"shared":1}'));
    expect(storedFiles().filter((f) => f === sha('{"shared":1}'))).toHaveLength(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(store.dir, 'tmp'))).toEqual([]);
    expect((await store.read(first.files[0])).toString()).toBe('{"shared":1}');
  });

  it('answers the earlier bundle for an identical upload, and a new one when anything differs', async () => {
    const make = (content: string, dist: string | null = null) => bundle('idem@1', [stage('~/x.js', content, 'minified_source')], { dist });
    const first = await store.create(make('x()'));
    const again = await store.create(make('x()'));
    expect(again).toEqual({ bundle: first.bundle, created: false });
    expect((await store.create(make('x(1)'))).created).toBe(true);
    expect((await store.create(make('x()', 'other'))).created).toBe(true);
    expect(readdirSync(join(store.dir, 'tmp'))).toEqual([]);
  });

  it('byDebugId finds the project’s files across releases, newest bundle first, of the asked types', async () => {
    const older = await store.create(bundle('dbg@1', [stage('~/app.js.map', '{"v":1}', 'source_map', DEBUG_ID)]));
    const newer = await store.create(
      bundle('dbg@2', [stage('~/app.js.map', '{"v":2}', 'source_map', DEBUG_ID), stage('~/app.js', 'app()', 'minified_source', DEBUG_ID)]),
    );
    await store.create(bundle('dbg@1', [stage('~/other.js.map', '{"v":3}', 'source_map', DEBUG_ID)], { projectId: 'api' }));
    await store.create(bundle('dbg@1', [stage('~/test.js.map', '{"v":4}', 'source_map', DEBUG_ID)], { dataset: 'test' }));

    const maps = await store.byDebugId(scope('whatever'), DEBUG_ID.toUpperCase(), ['source_map']);
    expect(maps.map((f) => [f.bundle_id, f.name])).toEqual([
      [newer.bundle.id, '~/app.js.map'],
      [older.bundle.id, '~/app.js.map'],
    ]);
    expect(maps[0]).toEqual({
      bundle_id: newer.bundle.id,
      name: '~/app.js.map',
      type: 'source_map',
      size: 7,
      sha256: sha('{"v":2}'),
      debug_id: DEBUG_ID,
      source_mapping_url: null,
    });
    expect((await store.byDebugId(scope('x'), DEBUG_ID, ['minified_source'])).map((f) => f.name)).toEqual(['~/app.js']);
    expect(await store.byDebugId(scope('x'), DEBUG_ID, ['proguard'])).toEqual([]);
    expect(await store.byDebugId(scope('x', null, { projectId: 'nobody' }), DEBUG_ID, ['source_map'])).toEqual([]);
    expect((await store.read(maps[1])).toString()).toBe('{"v":1}');
  });

  it('byNames matches names exactly, in the order asked, within the release and dist', async () => {
    await store.create(
      bundle('names@1', [
        stage('~/static/js/app.js.map', '{"n":"tilde"}'),
        stage('https://cdn.example.com/static/js/app.js.map', '{"n":"url"}'),
        stage('app.js.map', '{"n":"basename"}'),
      ]),
    );
    await store.create(bundle('names@1', [stage('~/static/js/app.js.map', '{"n":"dist"}')], { dist: 'mobile' }));
    await store.create(bundle('names@2', [stage('~/static/js/app.js.map', '{"n":"other release"}')]));

    const candidates = ['https://shop.example.com/static/js/app.js.map', '~/static/js/app.js.map', 'app.js.map'];
    const found = await store.byNames(scope('names@1'), candidates, ['source_map']);
    expect(found.map((f) => f.name)).toEqual(['~/static/js/app.js.map', 'app.js.map']);
    expect((await store.read(found[0])).toString()).toBe('{"n":"tilde"}');

    const reversed = await store.byNames(scope('names@1'), ['app.js.map', 'https://cdn.example.com/static/js/app.js.map'], []);
    expect(reversed.map((f) => f.name)).toEqual(['app.js.map', 'https://cdn.example.com/static/js/app.js.map']);

    const dist = await store.byNames(scope('names@1', 'mobile'), candidates, ['source_map']);
    expect(dist.map((f) => f.sha256)).toEqual([sha('{"n":"dist"}')]);
    expect(await store.byNames(scope('names@1', 'tablet'), candidates, ['source_map'])).toEqual([]);
    expect(await store.byNames(scope('names@1'), candidates, ['minified_source'])).toEqual([]);
    expect(await store.byNames(scope('names@1'), [], ['source_map'])).toEqual([]);
    expect((await store.byNames(scope('names@2'), candidates, ['source_map'])).map((f) => f.sha256)).toEqual([sha('{"n":"other release"}')]);
  });

  it('delete unlinks a file no other bundle refers to and keeps a shared one', async () => {
    const a = await store.create(bundle('del@1', [stage('~/only.js', 'only()', 'minified_source'), stage('~/shared.js', 'shared()', 'minified_source')]));
    const b = await store.create(bundle('del@2', [stage('~/shared.js', 'shared()', 'minified_source')]));
    expect(await store.delete(a.bundle.id)).toBe(true);
    expect(existsSync(store.pathOf(sha('only()')))).toBe(false);
    expect(existsSync(store.pathOf(sha('shared()')))).toBe(true);
    expect(await store.get(a.bundle.id)).toBeUndefined();
    expect(await store.delete(a.bundle.id)).toBe(false);
    expect(await store.delete(b.bundle.id)).toBe(true);
    expect(existsSync(store.pathOf(sha('shared()')))).toBe(false);
  });

  it('lists newest first with a cursor, filtered by release and dist', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await store.create(bundle(`page@${i % 2}`, [stage(`~/p${i}.js`, `p${i}()`, 'minified_source')], { projectId: 'paging' }))).bundle.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await store.list({ dataset: 'live', projectId: 'paging' }, 2, cursor);
      seen.push(...page.data.map((b) => b.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([...ids].reverse());
    const odd = await store.list({ dataset: 'live', projectId: 'paging', release: 'page@1' }, 10);
    expect(odd.data.map((b) => b.id)).toEqual([ids[3], ids[1]]);
    expect(odd.data[0]).toMatchObject({ project_id: 'paging', release: 'page@1', dist: null, file_count: 1, size: 4 });
    expect((await store.list({ dataset: 'live', projectId: 'paging', dist: 'x' }, 10)).data).toEqual([]);
    expect((await store.list({ dataset: 'test', projectId: 'paging' }, 10)).data).toEqual([]);
  });

  it('expires bundles created before the first kept day, and the files only they held', async () => {
    const kept = await store.create(bundle('exp@1', [stage('~/kept.js', 'kept()', 'minified_source')], { projectId: 'expiry' }));
    const result = await store.expire('2999-01-01');
    expect(result.deletedRows.artifact_bundles).toBeGreaterThan(0);
    expect(await store.get(kept.bundle.id)).toBeUndefined();
    expect(storedFiles()).toEqual([]);
    const fresh = await store.create(bundle('exp@2', [stage('~/fresh.js', 'fresh()', 'minified_source')]));
    expect(await store.expire('2000-01-01')).toEqual({ deletedRows: { artifact_bundles: 0, artifact_files: 0 }, deletedPartitions: [] });
    expect((await store.get(fresh.bundle.id))?.files.map((f) => f.name)).toEqual(['~/fresh.js']);
  });

  it('sweeps at start what a crash left: staging files and files no bundle refers to', async () => {
    const live = await store.create(bundle('sweep@1', [stage('~/live.js', 'live()', 'minified_source')]));
    const orphan = sha('orphan');
    mkdirSync(dirname(store.pathOf(orphan)), { recursive: true });
    writeFileSync(store.pathOf(orphan), 'orphan'); // placed, and the crash came before its bundle committed
    const leftover = stage('~/half.js', 'half()', 'minified_source');
    const restarted = new ArtifactStore(db, store.dir);
    expect(await restarted.start()).toBe(1);
    expect(existsSync(leftover.path)).toBe(false);
    expect(existsSync(store.pathOf(orphan))).toBe(false);
    expect(storedFiles()).toContain(sha('live()'));
    expect((await restarted.read(live.bundle.files[0])).toString()).toBe('live()');
  });

  it('on a shared path (a control plane): keeps other nodes’ bytes at start and on delete, and applies bundles from elsewhere once', async () => {
    const otherDir = tempDir('faultline-artifacts-node-');
    const other = await migratedDatabase(otherDir, ['artifacts']);
    try {
      const shared = new ArtifactStore(other, store.dir, true);
      // A content placed by a node whose metadata has not arrived here: not swept.
      const pending = sha('pending()');
      mkdirSync(dirname(store.pathOf(pending)), { recursive: true });
      writeFileSync(store.pathOf(pending), 'pending()');
      expect(await shared.start()).toBe(0);
      expect(existsSync(store.pathOf(pending))).toBe(true);
      // A bundle made on the first node reaches this one as a change: listed and looked up here, once.
      const made = await store.create(bundle('shared@1', [stage('~/shared-app.js', 'sharedApp()', 'minified_source')]));
      const change = { kind: 'artifact_bundle' as const, bundle: made.bundle, digest: 'd' };
      await shared.apply(change);
      await shared.apply(change);
      expect((await shared.byNames(scope('shared@1'), ['~/shared-app.js'], [])).map((f) => f.bundle_id)).toEqual([made.bundle.id]);
      // Deleted here: the metadata goes, the bytes stay (another node may hold a bundle of the same content).
      expect(await shared.delete(made.bundle.id)).toBe(true);
      expect(await shared.get(made.bundle.id)).toBeUndefined();
      expect(existsSync(store.pathOf(sha('sharedApp()')))).toBe(true);
      // A deleted bundle does not come back when its creation is replayed.
      await shared.apply(change);
      expect(await shared.get(made.bundle.id)).toBeUndefined();
    } finally {
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
