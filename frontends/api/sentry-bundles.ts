// What sentry-cli uploads (`sentry-cli sourcemaps upload`, and the bundler plugins that run it):
// an *artifact bundle* — a zip (after a `SYSB` header) of the files plus a `manifest.json` that
// gives each file's URL (`~/static/js/app.min.js`), type (`minified_source`, `source_map`) and
// headers (`debug-id`, `sourcemap`) — cut into chunks named by their SHA-1, uploaded with
// POST …/chunk-upload/ and put together by POST …/artifactbundle/assemble/.
//
// Chunks wait as staging files of this process's artifact store until an assemble names them;
// a bundle put together becomes the files of an ordinary upload (the staging files
// `ArtifactStore.create` takes), checked like POST /v1/sourcemaps' files.
import { createHash } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import type { ArtifactType } from '../../src/records/artifact.js';
import type { UploadedFile } from './sourcemap-upload.js';

/** What the chunk-upload options promise: a chunk's size, and how many go in one request. */
export const CHUNK_SIZE = 8 * 1024 * 1024;
export const CHUNKS_PER_REQUEST = 16;
/** Most chunks one assemble may name. */
export const MAX_CHUNKS = 1024;
/** Most files in one bundle. */
const MAX_BUNDLE_FILES = 10_000;

export const SHA1 = /^[0-9a-f]{40}$/;

/** How long an uploaded chunk waits for the assemble that names it. */
const CHUNK_TTL_MS = 60 * 60 * 1000;

/**
 * Chunks by SHA-1, as files in a directory (the artifact store's staging directory). A chunk no
 * assemble took within CHUNK_TTL_MS is deleted at the next upload (an abandoned upload leaves
 * nothing behind for long; the store's start sweeps its staging directory too).
 */
export class ChunkStore {
  private readonly stored = new Map<string, number>();

  constructor(private readonly dir: () => string) {}

  pathOf(sha1: string): string {
    return join(this.dir(), `chunk-${sha1}`);
  }

  /** Stores a chunk if its bytes hash to its name; false when they do not. */
  async put(sha1: string, bytes: Uint8Array): Promise<boolean> {
    if (createHash('sha1').update(bytes).digest('hex') !== sha1) return false;
    await this.expire(Date.now() - CHUNK_TTL_MS);
    await writeFile(this.pathOf(sha1), bytes, { mode: 0o600 });
    this.stored.set(sha1, Date.now());
    return true;
  }

  private async expire(before: number): Promise<void> {
    const old: string[] = [];
    for (const [name, at] of this.stored) if (at < before) old.push(name);
    if (old.length > 0) await this.remove(old);
  }

  /** The chunks of `names` not stored here. */
  async missing(names: readonly string[]): Promise<string[]> {
    const absent: string[] = [];
    for (const name of new Set(names)) {
      try {
        await stat(this.pathOf(name));
      } catch {
        absent.push(name);
      }
    }
    return absent;
  }

  /** The chunks put together, or an error message (too large, or not the checksum). */
  async assemble(names: readonly string[], checksum: string, limit: number): Promise<Buffer | string> {
    const parts: Buffer[] = [];
    let total = 0;
    for (const name of names) {
      const part = await readFile(this.pathOf(name));
      total += part.length;
      if (total > limit) return `the bundle is larger than ${limit} bytes (limits.sourcemap_upload_bytes)`;
      parts.push(part);
    }
    const whole = Buffer.concat(parts);
    if (createHash('sha1').update(whole).digest('hex') !== checksum) return 'the chunks put together do not have the checksum the request gives';
    return whole;
  }

  async remove(names: readonly string[]): Promise<void> {
    for (const name of names) this.stored.delete(name);
    await Promise.all([...new Set(names)].map((name) => rm(this.pathOf(name), { force: true })));
  }
}

/** A bundle's `manifest.json` (the fields used). */
interface Manifest {
  files?: Record<string, { type?: unknown; url?: unknown; headers?: Record<string, unknown> }>;
  release?: unknown;
  dist?: unknown;
}

/** The manifest's file types that are Faultline artifacts; others (`source`, RAM bundles) are skipped. */
const TYPES: Record<string, ArtifactType> = { minified_source: 'minified_source', source_map: 'source_map' };

export interface BundleFile extends UploadedFile {
  /** The manifest's `sourcemap` header (the map a minified file names). */
  sourcemapHeader?: string;
  debugIdHeader?: string;
}

export interface ReadBundle {
  files: BundleFile[];
  /** Files of the manifest that are no artifact Faultline keeps (their URLs). */
  skipped: string[];
  release?: string;
  dist?: string;
}

/**
 * Reads an artifact bundle into staging files (`stagingPath` for each). Throws with a message
 * for the sender when it is not a bundle. Inflates at most `limit` bytes in all.
 */
export async function readArtifactBundle(zip: Buffer, limit: number, stagingPath: () => string): Promise<ReadBundle> {
  let inflated = 0;
  let count = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(new Uint8Array(zip.buffer, zip.byteOffset, zip.byteLength), {
      filter: (file) => {
        if (++count > MAX_BUNDLE_FILES + 1) throw new Error(`more than ${MAX_BUNDLE_FILES} files`);
        inflated += file.originalSize;
        if (inflated > limit) throw new Error(`more than ${limit} bytes inflated (limits.sourcemap_upload_bytes)`);
        return true;
      },
    });
  } catch (error) {
    throw new Error(`not a readable artifact bundle (zip): ${(error as Error).message}`, { cause: error });
  }
  const manifestBytes = entries['manifest.json'];
  if (manifestBytes === undefined) throw new Error('the artifact bundle has no manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(strFromU8(manifestBytes)) as Manifest;
  } catch (error) {
    throw new Error(`the artifact bundle's manifest.json is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const out: ReadBundle = { files: [], skipped: [] };
  if (typeof manifest.release === 'string' && manifest.release !== '') out.release = manifest.release;
  if (typeof manifest.dist === 'string' && manifest.dist !== '') out.dist = manifest.dist;
  try {
    for (const [path, info] of Object.entries(manifest.files ?? {})) {
      const bytes = entries[path];
      const url = typeof info.url === 'string' ? info.url : path;
      const type = typeof info.type === 'string' ? TYPES[info.type] : undefined;
      if (bytes === undefined || type === undefined) {
        out.skipped.push(url);
        continue;
      }
      const header = (name: string) => {
        const value = info.headers?.[name] ?? info.headers?.[name.replace(/^./, (c) => c.toUpperCase())];
        return typeof value === 'string' && value !== '' ? value : undefined;
      };
      const file: BundleFile = {
        index: out.files.length,
        name: url,
        declaredType: type,
        path: stagingPath(),
        size: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        sourcemapHeader: header('sourcemap'),
        debugIdHeader: header('debug-id'),
      };
      out.files.push(file);
      await writeFile(file.path, bytes, { flag: 'wx', mode: 0o600 });
    }
  } catch (error) {
    await Promise.all(out.files.map((file) => rm(file.path, { force: true })));
    throw error;
  }
  return out;
}
