// The artifact store: uploaded source maps, minified sources, ProGuard mapping files and Breakpad
// symbol files. Their metadata lives in the catalog (artifact_bundles, artifact_files: one bundle
// per upload, its project, release and dist); their bytes live once per content under
// `service.artifacts.path`, at `<path>/<sha256[0..2]>/<sha256>`, shared by every bundle that holds
// the same content.
//
// Crash safety: bytes are written (to a staging file, fsynced, renamed into place) before the
// metadata that refers to them commits, and unlinked only after the metadata that referred to
// them is gone — so a crash can leave a file nothing refers to (swept at the next start), never a
// reference to a missing file. Placing and unlinking run one at a time (an in-process lock: one
// process writes the catalog), so a delete never unlinks a file an upload is about to refer to.
//
// Shared (a shared control plane is configured, issue #15): every node points at one path, and a
// bundle's metadata reaches the other nodes' catalogs through the control plane. A node then knows
// only part of what refers to a content at any moment (an upload on another node may be on its
// way), so it never unlinks stored contents: deletions and expiry remove the metadata only, and
// the bytes of deleted bundles stay on the shared path (content-addressed, so an upload of the same
// file reuses them). Each process stages its uploads in a directory of its own under tmp/, and
// sweeps only staging directories a day old.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import type { ExpiryResult } from '../../src/engine/component.js';
import type { Dataset } from '../../src/engine/item.js';
import type { ArtifactFile, ArtifactLookup, ArtifactScope, ArtifactType } from '../../src/records/artifact.js';
import { uuidv7 } from '../../src/records/uuid.js';
import { deletedAt, markDeleted } from '../duckdb/journal.js';
import { decodeCursor, encodeCursor } from '../../src/http/cursor.js';
import type { Database } from '../duckdb/database.js';
import { makePrivateDir, syncDir } from '../duckdb/private-files.js';
import { rows } from '../duckdb/rows.js';

/** A file of an upload, validated, its bytes in a staging file that `create` moves into place. */
export interface StagedArtifact extends Omit<ArtifactFile, 'bundle_id'> {
  /** The staging file (see ArtifactStore.stagingPath) holding the bytes. */
  path: string;
}

export interface NewBundle {
  dataset: Dataset;
  projectId: string;
  release: string;
  dist: string | null;
  files: StagedArtifact[];
}

export interface Bundle {
  id: string;
  dataset: Dataset;
  project_id: string;
  release: string;
  dist: string | null;
  created_at: string;
  /** By name. */
  files: ArtifactFile[];
}

/** A bundle in a list: its files counted, not listed. */
export interface BundleSummary {
  id: string;
  project_id: string;
  release: string;
  dist: string | null;
  created_at: string;
  file_count: number;
  /** Bytes of its files together. */
  size: number;
}

export interface BundleFilter {
  dataset: Dataset;
  projectId: string;
  release?: string;
  dist?: string;
}

export interface BundlePage {
  data: BundleSummary[];
  nextCursor: string | null;
}

const FILE_COLUMNS = 'f.bundle_id, f.name, f.type, f.size, f.sha256, f.debug_id, f.source_mapping_url';
/** Rows per INSERT statement when a bundle's files are recorded. */
const INSERT_CHUNK = 200;
const SHARD = /^[0-9a-f]{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** Lists of names, types and hashes are passed typed: an empty one has no type of its own. */
const TEXT_LIST = LIST(VARCHAR);
/** Shared path: a staging directory this old belongs to a process that died mid-upload. */
const STALE_STAGING_MS = 24 * 3600_000;

/** An artifact bundle's metadata (its bytes are on the shared artifacts path already), or its deletion: what the control plane replicates. */
export type ArtifactBundleChange = { kind: 'artifact_bundle'; bundle: Bundle; digest: string } | { kind: 'artifact_bundle'; id: string; deleted: true };

/** The control plane's compaction key of a bundle's change (its deletion marker's key too). */
export function bundleChangeKey(change: ArtifactBundleChange): string {
  return `artifact_bundle:${'bundle' in change ? change.bundle.id : change.id}`;
}

export class ArtifactStore implements ArtifactLookup {
  private lock: Promise<unknown> = Promise.resolve();
  private changes = 0;
  private presence?: {
    version: number;
    loading: Promise<{ projects: Set<string>; scopes: Set<string> }>;
    known?: { projects: Set<string>; scopes: Set<string> };
  };
  private readonly staging: string;

  constructor(
    private readonly db: Database,
    /** `service.artifacts.path`, resolved. */
    readonly dir: string,
    /** Whether other nodes share the path (see the top of this file). */
    private readonly shared = false,
  ) {
    this.staging = shared ? join(dir, 'tmp', `${Date.now()}-${randomBytes(6).toString('hex')}`) : join(dir, 'tmp');
  }

  /**
   * Creates the directories and sweeps what a crash left: staging files, and stored files no
   * bundle refers to. Run once at start, before uploads are taken. Returns how many files went.
   */
  async start(): Promise<number> {
    makePrivateDir(this.dir);
    if (this.shared) {
      await this.sweepStaleStaging();
      await this.present();
      return 0;
    }
    const swept = await this.exclusive(async () => {
      await rm(this.staging, { recursive: true, force: true });
      makePrivateDir(this.staging);
      const referenced = new Set((await this.db.reader().runAndReadAll('SELECT DISTINCT sha256 FROM artifact_files')).getRows().map(([sha]) => String(sha)));
      let swept = 0;
      for (const shard of await readdir(this.dir)) {
        if (!SHARD.test(shard)) continue;
        for (const name of await readdir(join(this.dir, shard))) {
          if (SHA256.test(name) && referenced.has(name)) continue;
          await rm(join(this.dir, shard, name), { force: true, recursive: true });
          swept++;
        }
      }
      return swept;
    });
    await this.present(); // which projects have files is known before the first event
    return swept;
  }

  /** A new path in the staging directory, for the bytes of an upload's file. */
  stagingPath(): string {
    return join(this.staging, randomUUID());
  }

  /** Where the bytes of a content are stored. */
  pathOf(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  /**
   * Stores a bundle: its files' bytes moved into place (a content already stored is not stored
   * again), then its metadata in one transaction. An upload identical to an earlier one (same
   * dataset, project, release, dist, and the same names, types and contents) answers the earlier
   * bundle, `created: false`. The staging files are gone afterwards, whatever happens.
   */
  async create(input: NewBundle): Promise<{ bundle: Bundle; created: boolean }> {
    try {
      return await this.exclusive(async () => {
        const digest = uploadDigest(input);
        const existing = await this.db.reader().runAndReadAll('SELECT id FROM artifact_bundles WHERE upload_digest = ?', [digest]);
        const existingId = existing.getRows()[0]?.[0];
        if (existingId !== undefined) {
          const bundle = await this.get(String(existingId));
          if (bundle) return { bundle, created: false };
        }
        const placed: string[] = [];
        try {
          for (const file of input.files) if (await this.place(file)) placed.push(file.sha256);
          const bundle: Bundle = {
            id: uuidv7(),
            dataset: input.dataset,
            project_id: input.projectId,
            release: input.release,
            dist: input.dist,
            created_at: new Date().toISOString(),
            files: [],
          };
          bundle.files = [...input.files]
            .sort((a, b) => compare(a.name, b.name))
            .map(({ name, type, size, sha256, debug_id, source_mapping_url }) => ({
              bundle_id: bundle.id,
              name,
              type,
              size,
              sha256,
              debug_id,
              source_mapping_url,
            }));
          await this.db.write(async (c) => {
            await insertBundle(c, bundle, digest);
            await this.db.recordChange(c, { kind: 'artifact_bundle', bundle, digest });
          });
          return { bundle, created: true };
        } catch (error) {
          // Nothing refers to what this upload placed (it was new, and the lock is held).
          await Promise.all(placed.map((sha) => unlink(this.pathOf(sha)).catch(() => undefined)));
          throw error;
        }
      });
    } finally {
      await Promise.all(input.files.map((file) => rm(file.path, { force: true })));
    }
  }

  /** Bundles of a project, newest first (created_at, then id), `limit` a page, after `cursor`. */
  async list(filter: BundleFilter, limit: number, cursor?: string): Promise<BundlePage> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const where = ['b.dataset = $dataset', 'b.project_id = $project'];
    const params: Record<string, string | number | bigint> = { dataset: filter.dataset, project: filter.projectId, limit: limit + 1 };
    if (filter.release !== undefined) {
      where.push('b.release = $release');
      params.release = filter.release;
    }
    if (filter.dist !== undefined) {
      where.push('b.dist = $dist');
      params.dist = filter.dist;
    }
    if (after) {
      where.push('(b.created_at < make_timestamp($cursor_us::BIGINT) OR (b.created_at = make_timestamp($cursor_us::BIGINT) AND b.id < $cursor_id))');
      params.cursor_us = after.micros;
      params.cursor_id = after.id;
    }
    const result = await this.db.reader().runAndReadAll(
      `SELECT b.id, b.project_id, b.release, b.dist, b.created_at, count(f.name) AS file_count, coalesce(sum(f.size), 0) AS size
         FROM artifact_bundles b LEFT JOIN artifact_files f ON f.bundle_id = b.id
        WHERE ${where.join(' AND ')}
        GROUP BY b.id, b.project_id, b.release, b.dist, b.created_at
        ORDER BY b.created_at DESC, b.id DESC LIMIT $limit`,
      params,
    );
    const found = rows<BundleSummary>(result);
    const page = found.slice(0, limit);
    const last = page[page.length - 1];
    // created_at is written with millisecond precision (a JavaScript Date), so it converts exactly.
    const next = found.length > limit ? encodeCursor({ micros: BigInt(Date.parse(last.created_at)) * 1000n, id: last.id }) : null;
    return { data: page, nextCursor: next };
  }

  /** A bundle with its files, whatever its dataset and project (the caller checks those). */
  async get(id: string): Promise<Bundle | undefined> {
    const reader = this.db.reader();
    const [bundle] = rows<Omit<Bundle, 'files'>>(
      await reader.runAndReadAll('SELECT id, dataset, project_id, release, dist, created_at FROM artifact_bundles WHERE id = ?', [id]),
    );
    if (!bundle) return undefined;
    const files = rows<ArtifactFile>(await reader.runAndReadAll(`SELECT ${FILE_COLUMNS} FROM artifact_files f WHERE f.bundle_id = ? ORDER BY f.name`, [id]));
    return { ...bundle, files };
  }

  /** Deletes a bundle, then the stored files no other bundle refers to. False: no such bundle. */
  async delete(id: string): Promise<boolean> {
    return this.exclusive(async () => {
      const { bundles, shas } = await this.db.write((c) => this.deleteAndRecord(c, 'id = $id', { id }));
      await this.unlinkUnreferenced(shas);
      return bundles > 0;
    });
  }

  /** Retention: deletes the bundles created before `firstKeptDay` (`YYYY-MM-DD`, UTC) and the files only they referred to. */
  async expire(firstKeptDay: string): Promise<ExpiryResult> {
    return this.exclusive(async () => {
      const { bundles, files, shas } = await this.db.write((c) => this.deleteAndRecord(c, 'created_at < CAST($day AS TIMESTAMP)', { day: firstKeptDay }));
      await this.unlinkUnreferenced(shas);
      return { deletedRows: { artifact_bundles: bundles, artifact_files: files }, deletedPartitions: [] };
    });
  }

  /**
   * A bundle's metadata or deletion as another node made it (the shared control plane): its bytes
   * are on the shared path already (placed before the metadata committed there). Idempotent: a
   * bundle is inserted once, and never after its deletion.
   */
  async apply(change: ArtifactBundleChange): Promise<void> {
    const key = bundleChangeKey(change);
    await this.exclusive(() =>
      this.db.write(async (c) => {
        if ('deleted' in change) {
          await deleteBundles(c, 'id = $id', { id: change.id });
          await markDeleted(c, key, Date.now());
          return;
        }
        if ((await deletedAt(c, key)) !== undefined) return;
        if ((await c.runAndReadAll('SELECT 1 FROM artifact_bundles WHERE id = ?', [change.bundle.id])).getRows().length) return;
        await insertBundle(c, change.bundle, change.digest);
      }),
    );
  }

  /**
   * Files of the scope's dataset and project, whatever their release and dist, whose debug id is
   * `debugId` (compared lower-cased, exactly: a UUID in dashed form for source maps, minified
   * sources and ProGuard; Breakpad's 33-40 hex digits as its MODULE line has them) and whose type is
   * one of `types` (none: any type). Newest bundle first, then by name.
   */
  async byDebugId(scope: ArtifactScope, debugId: string, types: readonly ArtifactType[]): Promise<ArtifactFile[]> {
    if (!(await this.present()).projects.has(`${scope.dataset}\0${scope.projectId}`)) return [];
    const result = await this.db.reader().runAndReadAll(
      `SELECT ${FILE_COLUMNS} FROM artifact_files f JOIN artifact_bundles b ON b.id = f.bundle_id
        WHERE f.dataset = $dataset AND f.project_id = $project AND f.debug_id = $debug_id AND (len($types) = 0 OR list_contains($types, f.type))
        ORDER BY b.created_at DESC, b.id DESC, f.name`,
      { dataset: scope.dataset, project: scope.projectId, debug_id: debugId.toLowerCase(), types: listValue([...types]) },
      { types: TEXT_LIST },
    );
    return rows<ArtifactFile>(result);
  }

  /**
   * Files of the scope's dataset, project, release and dist (null: bundles uploaded without a dist)
   * whose name equals one of `names` exactly (no normalization: `~/static/app.js` matches only a
   * file uploaded under that name) and whose type is one of `types` (none: any type). Ordered by
   * the position of their name in `names`, then newest bundle first; every match is returned.
   */
  async byNames(scope: ArtifactScope, names: readonly string[], types: readonly ArtifactType[]): Promise<ArtifactFile[]> {
    if (names.length === 0) return [];
    if (!(await this.scopeHasFiles(scope))) return [];
    const result = await this.db.reader().runAndReadAll(
      `SELECT ${FILE_COLUMNS} FROM artifact_files f JOIN artifact_bundles b ON b.id = f.bundle_id
        WHERE f.dataset = $dataset AND f.project_id = $project AND f.release = $release AND f.dist IS NOT DISTINCT FROM $dist
          AND list_contains($names, f.name) AND (len($types) = 0 OR list_contains($types, f.type))
        ORDER BY list_position($names, f.name), b.created_at DESC, b.id DESC`,
      {
        dataset: scope.dataset,
        project: scope.projectId,
        release: scope.release,
        dist: scope.dist,
        names: listValue([...names]),
        types: listValue([...types]),
      },
      { names: TEXT_LIST, types: TEXT_LIST },
    );
    return rows<ArtifactFile>(result);
  }

  /** Whether the scope's dataset, project, release and dist have any file (answered from the presence set, no query of its own). */
  async scopeHasFiles(scope: ArtifactScope): Promise<boolean> {
    return (await this.present()).scopes.has(`${scope.dataset}\0${scope.projectId}\0${scope.release}\0${scope.dist ?? ''}`);
  }

  /** The file's bytes (rejects with ENOENT if its content was deleted since it was looked up). */
  read(file: ArtifactFile): Promise<Buffer> {
    return readFile(this.pathOf(file.sha256));
  }

  /**
   * Moves a staged file to its content's place, durably: the staging file synced, renamed, the
   * directory synced. False when the content is stored already (the staging file is left for
   * create's cleanup).
   */
  private async place(file: StagedArtifact): Promise<boolean> {
    const target = this.pathOf(file.sha256);
    if (await exists(target)) return false;
    await syncPrivate(file.path);
    const shard = join(this.dir, file.sha256.slice(0, 2));
    if (!(await exists(shard))) {
      await mkdir(shard, { recursive: true, mode: 0o700 });
      await syncDir(this.dir);
    }
    await rename(file.path, target);
    await syncDir(shard);
    return true;
  }

  /** Deletes bundles (deleteBundles) and records each deletion for the control plane. */
  private async deleteAndRecord(
    c: DuckDBConnection,
    where: string,
    params: Record<string, string>,
  ): Promise<{ bundles: number; files: number; shas: string[] }> {
    const deleted = await deleteBundles(c, where, params);
    for (const id of deleted.ids) {
      await markDeleted(c, `artifact_bundle:${id}`, Date.now());
      await this.db.recordChange(c, { kind: 'artifact_bundle', id, deleted: true });
    }
    return deleted;
  }

  /** Shared path: removes the staging directories of processes that died mid-upload a day ago or more. */
  private async sweepStaleStaging(): Promise<void> {
    const parent = join(this.dir, 'tmp');
    makePrivateDir(parent);
    for (const name of await readdir(parent)) {
      const info = await stat(join(parent, name)).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > STALE_STAGING_MS) await rm(join(parent, name), { recursive: true, force: true });
    }
    makePrivateDir(this.staging);
  }

  /** Unlinks the stored files of these contents that no bundle refers to any more (never on a shared path). */
  private async unlinkUnreferenced(shas: string[]): Promise<void> {
    const candidates = [...new Set(shas)];
    if (candidates.length === 0 || this.shared) return;
    const result = await this.db
      .reader()
      .runAndReadAll('SELECT DISTINCT sha256 FROM artifact_files WHERE list_contains($shas, sha256)', { shas: listValue(candidates) }, { shas: TEXT_LIST });
    const referenced = new Set(result.getRows().map(([sha]) => String(sha)));
    for (const sha of candidates) if (!referenced.has(sha)) await rm(this.pathOf(sha), { force: true });
  }

  /** Grows with every upload, deletion and expiry: caches of lookups made before are stale. */
  version(): number {
    return this.changes;
  }

  projectHasFiles(dataset: string, projectId: string): boolean | undefined {
    const known = this.presence?.version === this.changes ? this.presence.known : undefined;
    if (known === undefined) {
      void this.present().catch(() => undefined); // known for the next event
      return undefined;
    }
    return known.projects.has(`${dataset}\0${projectId}`);
  }

  /**
   * The projects and (project, release, dist) scopes that have files at all, read once per change:
   * events of releases nobody uploaded anything for (most, where no one uploads) cost no query.
   */
  private present(): Promise<{ projects: Set<string>; scopes: Set<string> }> {
    if (this.presence?.version !== this.changes) {
      const version = this.changes;
      const loading = this.db
        .reader()
        .runAndReadAll('SELECT DISTINCT dataset, project_id, release, dist FROM artifact_files')
        .then((result) => {
          const projects = new Set<string>();
          const scopes = new Set<string>();
          for (const [dataset, project, release, dist] of result.getRows()) {
            projects.add(`${String(dataset)}\0${String(project)}`);
            scopes.add(`${String(dataset)}\0${String(project)}\0${String(release)}\0${dist === null ? '' : String(dist)}`);
          }
          const known = { projects, scopes };
          if (this.presence?.loading === loading) this.presence.known = known;
          return known;
        });
      this.presence = { version, loading };
      loading.catch(() => {
        if (this.presence?.loading === loading) this.presence = undefined; // read again next time
      });
    }
    return (this.presence as { loading: Promise<{ projects: Set<string>; scopes: Set<string> }> }).loading;
  }

  /** Uploads, deletions and expiry, one at a time; each one changes `version()` once it is done. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.lock.then(work, work).finally(() => this.changes++);
    this.lock = result.catch(() => undefined);
    return result;
  }
}

/** What makes two uploads the same: dataset, project, release, dist, and each file's name, type and content. */
function uploadDigest(input: NewBundle): string {
  const files = input.files.map((f) => [f.name, f.type, f.sha256]).sort((a, b) => compare(a[0], b[0]));
  return createHash('sha256')
    .update(JSON.stringify([input.dataset, input.projectId, input.release, input.dist, files]))
    .digest('hex');
}

async function insertBundle(c: DuckDBConnection, bundle: Bundle, digest: string): Promise<void> {
  await c.run('INSERT INTO artifact_bundles VALUES (?, ?, ?, ?, ?, make_timestamp(?::BIGINT), ?)', [
    bundle.id,
    bundle.dataset,
    bundle.project_id,
    bundle.release,
    bundle.dist,
    BigInt(Date.parse(bundle.created_at)) * 1000n,
    digest,
  ]);
  for (let start = 0; start < bundle.files.length; start += INSERT_CHUNK) {
    const chunk = bundle.files.slice(start, start + INSERT_CHUNK);
    await c.run(
      `INSERT INTO artifact_files (bundle_id, name, type, size, sha256, debug_id, source_mapping_url, dataset, project_id, release, dist) VALUES ${chunk
        .map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .join(', ')}`,
      chunk.flatMap((f) => [
        f.bundle_id,
        f.name,
        f.type,
        f.size,
        f.sha256,
        f.debug_id,
        f.source_mapping_url,
        bundle.dataset,
        bundle.project_id,
        bundle.release,
        bundle.dist,
      ]),
    );
  }
}

/** Deletes the bundles `where` selects and their files; returns the counts and the files' contents. */
async function deleteBundles(
  c: DuckDBConnection,
  where: string,
  params: Record<string, string>,
): Promise<{ bundles: number; files: number; shas: string[]; ids: string[] }> {
  const files = await c.runAndReadAll(
    `DELETE FROM artifact_files WHERE bundle_id IN (SELECT id FROM artifact_bundles WHERE ${where}) RETURNING sha256`,
    params,
  );
  const bundles = await c.runAndReadAll(`DELETE FROM artifact_bundles WHERE ${where} RETURNING id`, params);
  const shas = files.getRows().map(([sha]) => String(sha));
  const ids = bundles.getRows().map(([id]) => String(id));
  return { bundles: ids.length, files: shas.length, shas, ids };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}

/** Mode 0600 (whatever made the file) and its bytes on disk. */
async function syncPrivate(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY);
  try {
    await handle.chmod(0o600);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
