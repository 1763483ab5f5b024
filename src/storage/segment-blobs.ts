// Replay segments on disk, compressed and content-addressed: `<dir>/<sha[0:2]>/<sha>.json.gz`,
// where sha is the SHA-256 of the segment's uncompressed JSON, so a segment posted twice (or the
// same bytes in two replays) is one file. A file is written to a staging name, synced, renamed
// into place and its directory synced before put() resolves: what an acknowledgment covers
// survives a crash. Stored gzip (Node 20 has no zstd in core) is what GET …/segments/{n} sends as
// is to a client that accepts gzip.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../../extensions/duckdb/private-files.js';
import { promisify } from 'node:util';
import { gzip, gunzip, constants as zlib } from 'node:zlib';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export interface StoredBlob {
  sha: string;
  /** Compressed bytes on disk. */
  bytes: number;
}

/** A segment's JSON as stored: gzip, which GET …/segments/{n} sends as is to a client that accepts it. */
export function gzipSegment(json: string): Promise<Buffer> {
  // Level 6 (zlib's default): within a few percent of 9's size at a third of its time on rrweb JSON.
  return gzipAsync(json, { level: zlib.Z_DEFAULT_COMPRESSION });
}

export class SegmentBlobs {
  private ready?: Promise<void>;

  constructor(readonly dir: string) {}

  static digest(json: string): string {
    return createHash('sha256').update(json).digest('hex');
  }

  pathOf(sha: string): string {
    return join(this.dir, sha.slice(0, 2), `${sha}.json.gz`);
  }

  /** Stores the JSON compressed, durably; resolves with its address (at once when stored already). */
  async put(json: string, sha = SegmentBlobs.digest(json)): Promise<StoredBlob> {
    const target = this.pathOf(sha);
    const existing = await size(target);
    if (existing !== undefined) return { sha, bytes: existing };
    await (this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined));
    const compressed = await gzipSegment(json);
    const shard = join(this.dir, sha.slice(0, 2));
    await mkdir(shard, { recursive: true, mode: 0o700 });
    const staging = join(shard, `.${sha}.${randomBytes(4).toString('hex')}.tmp`);
    const handle = await open(staging, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(compressed);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(staging, target);
    await syncDir(shard);
    return { sha, bytes: compressed.length };
  }

  /** The stored gzip bytes, or undefined when missing. */
  async gzipped(sha: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(sha));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The JSON, inflated. */
  async json(sha: string): Promise<Buffer | undefined> {
    const gz = await this.gzipped(sha);
    return gz === undefined ? undefined : gunzipAsync(gz);
  }

  async remove(shas: Iterable<string>): Promise<void> {
    for (const sha of shas) await rm(this.pathOf(sha), { force: true });
  }
}

async function size(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
