// Issue #31 with issue #14: replay segments with the lake on S3 (s3rver on loopback). The writer
// PUTs each segment's gzip blob to the bucket (replay-segments/project_id=…/date=…/<replay>/…)
// before it stages the row, keeps none on disk, and reads its own segments from the bucket; a
// query node with a directory of its own, started on an empty cache, serves the replay and its
// segments through its cache; retention deletes the blobs of expired days with their rows.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetConfigSchema } from '../../exporters/parquet/config.js';
import type { ParquetExporter } from '../../exporters/parquet/exporter.js';
import { S3LakeStore } from '../../exporters/parquet/s3-store.js';
import { packageRoot } from '../../src/paths.js';
import { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { postChunk, rrwebEvents } from '../support/replays.js';
import { startS3, type LoopbackS3 } from '../support/s3.js';
import { startService, tempDir, type TestService } from '../support/service.js';

const DAY_MS = 24 * 3600 * 1000;
const T0 = Date.now() - 60_000;
const OLD = Date.now() - 20 * DAY_MS;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const newId = () => `rpl_${randomUUID().replaceAll('-', '')}`;

const root = tempDir('faultline-lake-replays-s3-');
let s3: LoopbackS3;
let store: S3LakeStore;
let writer: TestService;
let query: TestService | undefined;
const ids = { a: newId(), old: newId() };
const first = rrwebEvents(T0, 4, { text: 'first copy' });
const second = rrwebEvents(T0 + 5_000, 2, { fullSnapshot: false });
const oldEvents = rrwebEvents(OLD, 3, { text: 'old only' });

/** The parquet section of a node: the lake on the bucket, under a local directory of its own. */
const lakeYaml = (dir: string, extra: string) =>
  readFileSync(join(packageRoot, 'config/examples/lake.yaml'), 'utf8').replace(
    '  parquet:\n',
    `  parquet:\n    path: ${dir}\n    s3: ${JSON.stringify({ ...s3.lakeConfig('replays'), refresh_ms: 100 })}\n${extra}`,
  );
const blobKey = (replay: string, segment: number, events: unknown, at: number) =>
  `replay-segments/project_id=default/date=${day(at)}/${replay}/${segment}-${SegmentBlobs.digest(JSON.stringify(events))}.json.gz`;
const blobKeys = async () => (await store.list('replay-segments/')).map((object) => object.key).sort();

async function json<T>(service: TestService, path: string): Promise<T> {
  const response = await service.api(path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  s3 = await startS3();
  store = new S3LakeStore(parquetConfigSchema.parse({ s3: s3.lakeConfig('replays') }).s3!);
  // Flushes only when the test says so.
  writer = await startService({
    yaml: lakeYaml(join(root, 'writer-lake'), '').replace('interval_ms: 10000', 'interval_ms: 3600000'),
    dataDir: join(root, 'writer'),
  });
  const post = async (fields: Record<string, unknown>, events: unknown) => expect((await postChunk(writer, 'events', fields, events)).status).toBe(202);
  await post({ replay_id: ids.a, segment_id: 0, environment: 'prod' }, first);
  await post({ replay_id: ids.a, segment_id: 1 }, second);
  await post({ replay_id: ids.old, segment_id: 0 }, oldEvents);
});
afterAll(async () => {
  await query?.stop();
  await writer.stop();
  store.close();
  await s3.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('replay segments with the lake on S3', () => {
  it('the writer PUTs each blob to the bucket before acknowledging, keeps none on disk, and reads its staged segments from it', async () => {
    expect(await blobKeys()).toEqual([blobKey(ids.a, 0, first, T0), blobKey(ids.a, 1, second, T0), blobKey(ids.old, 0, oldEvents, OLD)].sort());
    const [stored] = await store.list(blobKey(ids.a, 0, first, T0));
    expect(gunzipSync((await store.get(stored.key))!).toString()).toBe(JSON.stringify(first));
    expect(existsSync(join(root, 'writer-lake', 'replay-segments'))).toBe(false);
    // Not flushed yet: the rows are staged, the events come from the bucket.
    expect(await json(writer, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
    expect(await json(writer, `/v1/replays/${ids.a}`)).toMatchObject({ segment_count: 2, event_count: first.length + second.length });
  });

  it('a re-post with other events is another object; the segment keeps its first copy', async () => {
    const other = rrwebEvents(T0, 7, { text: 'second copy' });
    expect((await postChunk(writer, 'events', { replay_id: ids.a, segment_id: 0 }, other)).status).toBe(202);
    expect(await blobKeys()).toContain(blobKey(ids.a, 0, other, T0));
    await (writer.service.exporter('parquet') as unknown as ParquetExporter).flushNow('replays');
    expect(await json(writer, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
  });

  it('a query node with a directory of its own, on an empty cache, serves the replay and its segments from the bucket', async () => {
    const queryLake = join(root, 'query-lake');
    query = await startService({
      yaml: `
exporters:
  parquet:
    path: ${queryLake}
    s3: ${JSON.stringify({ ...s3.lakeConfig('replays'), refresh_ms: 100 })}
service:
  storage:
    replays: [parquet]
`,
      dataDir: join(root, 'query'),
    });
    const cached = join(queryLake, '.s3-cache', blobKey(ids.a, 1, second, T0));
    expect(existsSync(cached)).toBe(false);
    expect(await json(query, `/v1/replays/${ids.a}`)).toMatchObject({ id: ids.a, segment_count: 2, environment: 'prod' });
    expect(await json(query, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
    const gz = await fetch(`${query.baseUrl}/v1/replays/${ids.a}/segments/1`, {
      headers: { authorization: `Bearer ${query.liveKey}`, 'accept-encoding': 'gzip' },
    });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.json()).toEqual(second);
    // Read through the node's cache: the blob is there now, and a second read is served from it.
    expect(existsSync(cached)).toBe(true);
    expect(await json(query, `/v1/replays/${ids.a}/segments/1`)).toEqual(second);
    expect(await json(query, `/v1/replays/${ids.old}/segments/0`)).toEqual(oldEvents);
    expect((await query.api(`/v1/replays/${ids.a}/segments/7`)).status).toBe(404);
  });

  it('blobs count towards the cache bound: a cache with room for one keeps one, and every read still answers', async () => {
    const smallLake = join(root, 'small-query-lake');
    const small = await startService({
      yaml: `
exporters:
  parquet:
    path: ${smallLake}
    s3: ${JSON.stringify({ ...s3.lakeConfig('replays'), refresh_ms: 100, cache_max_bytes: 1 })}
service:
  storage:
    replays: [parquet]
`,
      dataDir: join(root, 'small-query'),
    });
    try {
      const cachedBlobs = () => readdirSync(join(smallLake, '.s3-cache'), { recursive: true }).filter((path) => String(path).endsWith('.json.gz'));
      for (let round = 0; round < 2; round++) {
        expect(await json(small, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
        expect(await json(small, `/v1/replays/${ids.a}/segments/1`)).toEqual(second);
        expect(cachedBlobs()).toEqual([expect.stringContaining(`${ids.a}/1-`)]); // the last read, the other evicted
      }
    } finally {
      await small.stop();
    }
  });

  it('retention deletes the blobs of expired days from the bucket with their rows, and keeps the others', async () => {
    const result = await writer.service.runRetention({ replays_days: 10 });
    expect(Object.entries(result.deletedRows)).toContainEqual([expect.stringContaining('replay-segments'), 1]);
    const keys = await blobKeys();
    expect(keys).not.toContain(blobKey(ids.old, 0, oldEvents, OLD));
    expect(keys).toContain(blobKey(ids.a, 0, first, T0));
    expect(keys).toContain(blobKey(ids.a, 1, second, T0));
    expect((await writer.api(`/v1/replays/${ids.old}`)).status).toBe(404);
    expect(await json(writer, `/v1/replays/${ids.a}/segments/1`)).toEqual(second);
    expect(await json(query!, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
  });
});
