// The parquet exporter's lake on S3 against a real S3 API server on loopback (s3rver, see
// test/support/s3.ts): a writer publishes its files to the bucket under the hive layout, a
// read-only node started on an empty cache reads them through its local cache, compaction
// replaces objects (new first, then the old ones go), retention deletes them, and a writer that
// dies while the bucket is away publishes everything once when it comes back.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateMultipartUploadCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetConfigSchema } from '../../exporters/parquet/config.js';
import type { ParquetExporter } from '../../exporters/parquet/exporter.js';
import { parquetFactory } from '../../exporters/parquet/factory.js';
import { S3LakeStore } from '../../exporters/parquet/s3-store.js';
import type { Item } from '../../src/engine/item.js';
import { EVENT_ROW_KEY } from '../../src/records/event-row.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { databaseOf, type Database } from '../../extensions/duckdb/index.js';
import { testHost } from '../support/test-host.js';
import { MergedSource } from '../../extensions/query/read-sources.js';
import { startS3, type LoopbackS3 } from '../support/s3.js';

let s3: LoopbackS3;
const dirs: string[] = [];
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-parquet-s3-'));
  dirs.push(dir);
  return dir;
}

const QUIET = { flush: { interval_ms: 3_600_000, linger_ms: 20 }, compaction: { interval_ms: 3_600_000, min_rows: 1000 } };

async function open(dir: string, config: Record<string, unknown>, readOnly = false): Promise<{ db: Database; exporter: ParquetExporter }> {
  const { host } = await testHost({ dataDir: dir, extensions: ['duckdb'] });
  const db = databaseOf(host);
  const exporter = parquetFactory.create({
    id: { type: 'parquet', text: 'parquet' },
    config: parquetConfigSchema.parse(config),
    host,
    readOnly,
  }) as ParquetExporter;
  await exporter.start();
  return { db, exporter };
}

let seq = 0;
function event(project: string, timestamp: string): Item<ErrorEvent> {
  seq++;
  const data = {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    timestamp,
    environment: 'production',
    release: 'shop@1.4.2',
    release_info: { app: 'shop', version: '1.4.2' },
    level: 'error',
    message: `checkout failed ${seq}`,
    user: { id: '42', email: 'ada@example.com' },
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    platform: 'javascript',
    exception: { type: 'TypeError', value: 'x is undefined', stacktrace: [{ filename: 'src/cart.js', function: 'totalOf', lineno: 12, in_app: true }] },
    tags: {},
    breadcrumbs: [],
    contexts: {},
    project_id: project,
    received_at: timestamp,
    issue_id: '5e0c1d2a9b3f4e61',
    title: 'TypeError',
    culprit: 'totalOf',
    processing_errors: [],
  } as unknown as ErrorEvent;
  return { data, tenant: { orgId: 'default', projectId: project, dataset: 'live' }, receivedAt: Date.now(), size: 1024 };
}

/** Event ids of a project as a read through the query node's merged source returns them. */
async function readIds(db: Database, exporter: ParquetExporter, project: string): Promise<string[]> {
  const merged = new MergedSource('events', [exporter.readSource()], EVENT_ROW_KEY);
  await merged.settled();
  const result = await merged.consistent(() => db.reader().runAndReadAll(`SELECT id FROM ${merged.relation([project])} ORDER BY id`));
  return result.getRows().map(([id]) => String(id));
}

const ids = (items: Item<ErrorEvent>[]) => items.map((x) => x.data.id).sort();

describe('parquet exporter: the lake on S3', () => {
  it('writes, reads through an empty cache, compacts and expires objects in the bucket', async () => {
    const s3cfg = s3.lakeConfig('roundtrip');
    const store = new S3LakeStore(parquetConfigSchema.parse({ s3: s3cfg }).s3!);
    const writer = await open(tempDir(), { ...QUIET, ack: 'lake', writer_id: 'w1', s3: { ...s3cfg, replaced_grace_ms: 300 } });
    const day1 = [event('p1', '2026-11-22T10:00:00.000Z'), event('p1', '2026-11-22T11:00:00.000Z')];
    const day2 = [event('p1', '2026-11-23T10:00:00.000Z')];
    await writer.exporter.export('events', [...day1, ...day2]);
    // Acknowledged means in the bucket, under the hive layout.
    const keys = (await store.list('events/')).map((o) => o.key).sort();
    expect(keys).toEqual(['events/project_id=p1/date=2026-11-22/part-w1-1-0.parquet', 'events/project_id=p1/date=2026-11-23/part-w1-1-0.parquet']);

    const queryDir = tempDir();
    const query = await open(queryDir, { s3: { ...s3cfg, refresh_ms: 50 } }, true);
    const cacheDir = join(queryDir, 'lake', '.s3-cache');
    expect(readdirSync(cacheDir)).toEqual([]); // started on an empty cache
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids([...day1, ...day2]));
    expect(existsSync(join(cacheDir, keys[0]))).toBe(true); // read from local copies

    // A second small file in the day-1 partition, then a compaction: one object, same rows.
    const more = [event('p1', '2026-11-22T12:00:00.000Z')];
    await writer.exporter.export('events', more);
    expect((await store.list('events/project_id=p1/date=2026-11-22/')).length).toBe(2);
    const [compacted] = await writer.exporter.compactNow('events');
    expect(compacted.outputs).toHaveLength(1);
    // For the grace period the inputs stay beside the merged object: reads see each row once.
    expect((await store.list('events/project_id=p1/date=2026-11-22/')).length).toBe(3);
    await new Promise((r) => setTimeout(r, 60));
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids([...day1, ...day2, ...more]));
    await new Promise((r) => setTimeout(r, 400));
    const day1Keys = (await store.list('events/project_id=p1/date=2026-11-22/')).map((o) => o.key);
    expect(day1Keys).toHaveLength(1);
    expect(day1Keys[0]).toMatch(/part-w1-c[0-9a-f]+\.parquet$/);
    await new Promise((r) => setTimeout(r, 60));
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids([...day1, ...day2, ...more]));

    // Retention deletes the objects of the days before the first kept one.
    const expired = await writer.exporter.expire({ events: '2026-11-23' });
    expect(Object.values(expired.deletedRows)).toContain(1);
    expect((await store.list('events/')).map((o) => o.key)).toEqual([keys[1]]);
    await new Promise((r) => setTimeout(r, 60));
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids(day2));

    await writer.exporter.shutdown();
    await query.exporter.shutdown();
    await writer.db.close();
    await query.db.close();
    store.close();
  });

  it('an object that is no Parquet file (cut short by a writer killed mid-upload) is left out of reads, and read once written again', async () => {
    const s3cfg = s3.lakeConfig('cut-short');
    const store = new S3LakeStore(parquetConfigSchema.parse({ s3: s3cfg }).s3!);
    const writer = await open(tempDir(), { ...QUIET, ack: 'lake', writer_id: 'w1', s3: s3cfg });
    const good = [event('p1', '2026-11-22T10:00:00.000Z'), event('p1', '2026-11-22T11:00:00.000Z')];
    await writer.exporter.export('events', good);
    const [published] = (await store.list('events/')).map((o) => o.key);
    // What a store that keeps partial objects holds after a killed upload: nothing, or bytes that are no Parquet file.
    const dir = tempDir();
    writeFileSync(join(dir, 'empty'), '');
    writeFileSync(join(dir, 'garbage'), 'PAR1 and then not a parquet file at all');
    await store.put('events/project_id=p1/date=2026-11-22/part-w9-1-0.parquet', join(dir, 'empty'));
    await store.put('events/project_id=p1/date=2026-11-22/part-w9-2-0.parquet', join(dir, 'garbage'));
    const query = await open(tempDir(), { s3: { ...s3cfg, refresh_ms: 50 } }, true);
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids(good));
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids(good));
    // The same key written again whole is read at the next listing: here the bytes of another
    // writer's file, whose own object then goes, so its rows can only come from the rewritten key.
    const other = await open(tempDir(), { ...QUIET, ack: 'lake', writer_id: 'w2', s3: s3cfg });
    const later = [event('p1', '2026-11-22T12:00:00.000Z')];
    await other.exporter.export('events', later);
    const [theirs] = (await store.list('events/')).map((o) => o.key).filter((key) => key !== published && key.includes('-w2-'));
    const copy = join(dir, 'copy.parquet');
    writeFileSync(copy, (await store.get(theirs)) ?? Buffer.alloc(0));
    await store.put('events/project_id=p1/date=2026-11-22/part-w9-1-0.parquet', copy);
    await store.delete([theirs]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids([...good, ...later]));
    await other.exporter.shutdown();
    await other.db.close();
    await writer.exporter.shutdown();
    await query.exporter.shutdown();
    await writer.db.close();
    await query.db.close();
    store.close();
  });

  it('a cache smaller than the lake evicts least recently read files and fetches them again when a read needs them', async () => {
    const s3cfg = s3.lakeConfig('eviction');
    const writer = await open(tempDir(), { ...QUIET, ack: 'lake', writer_id: 'w1', s3: s3cfg });
    const byDay = ['2026-11-20', '2026-11-21', '2026-11-22'].map((day) => [event('p1', `${day}T10:00:00.000Z`)]);
    for (const batch of byDay) await writer.exporter.export('events', batch);
    // Room for about one file: every read of all three days fetches what it lacks, and still answers in full.
    const query = await open(tempDir(), { s3: { ...s3cfg, refresh_ms: 50, cache_max_bytes: 1 } }, true);
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids(byDay.flat()));
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids(byDay.flat()));
    await writer.exporter.shutdown();
    await query.exporter.shutdown();
    await writer.db.close();
    await query.db.close();
  });

  it('a writer that dies while the bucket refuses its upload acknowledges nothing; restarted, it publishes each row once', async () => {
    const s3cfg = s3.lakeConfig('mid-upload');
    const dir = tempDir();
    // The bucket refuses the upload: a bucket name no server has.
    const broken = { ...s3cfg, bucket: 'no-such-bucket' };
    const writer = await open(dir, { ...QUIET, ack: 'lake', writer_id: 'w1', s3: broken });
    const batch = [event('p1', '2026-11-22T10:00:00.000Z'), event('p1', '2026-11-22T10:00:01.000Z')];
    let acked = false;
    void writer.exporter.export('events', batch).then(() => (acked = true));
    await new Promise((r) => setTimeout(r, 500));
    expect(acked).toBe(false); // the flush wrote its file locally, but the upload failed: no ack
    // The process dies here: no shutdown, its database closed as a crash leaves it.
    await writer.db.close().catch(() => undefined);
    const store = new S3LakeStore(parquetConfigSchema.parse({ s3: s3cfg }).s3!);
    expect(await store.list('')).toEqual([]);

    // Back on the same data directory, with the bucket reachable: recovery redoes the pending flush.
    const restarted = await open(dir, { ...QUIET, ack: 'lake', writer_id: 'w1', s3: s3cfg });
    expect((await store.list('events/')).map((o) => o.key)).toEqual(['events/project_id=p1/date=2026-11-22/part-w1-1-0.parquet']);
    const query = await open(tempDir(), { s3: { ...s3cfg, refresh_ms: 50 } }, true);
    expect(await readIds(query.db, query.exporter, 'p1')).toEqual(ids(batch));
    await restarted.exporter.shutdown();
    await query.exporter.shutdown();
    await restarted.db.close();
    await query.db.close();
    store.close();
  });

  it('a multipart upload left unfinished (its writer killed mid-upload) is not in the lake; a finished one is read whole', async () => {
    const s3cfg = s3.lakeConfig('multipart');
    const config = parquetConfigSchema.parse({ s3: { ...s3cfg, multipart_bytes: 1 } }).s3!;
    const store = new S3LakeStore(config);
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
    const Key = 'multipart/events/project_id=p1/date=2026-11-22/part-w9-1-0.parquet';
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key }));
    await client.send(new UploadPartCommand({ Bucket: s3.bucket, Key, UploadId, PartNumber: 1, Body: Buffer.alloc(5 * 1024 * 1024, 1) }));
    expect(await store.list('')).toEqual([]);

    const big = join(tempDir(), 'big.bin');
    const bytes = Buffer.alloc(9 * 1024 * 1024 + 17, 7);
    writeFileSync(big, bytes);
    await store.put('events/project_id=p1/date=2026-11-22/big.bin', big);
    expect(await store.list('')).toEqual([{ key: 'events/project_id=p1/date=2026-11-22/big.bin', size: bytes.length }]);
    const back = join(tempDir(), 'back.bin');
    expect(await store.download('events/project_id=p1/date=2026-11-22/big.bin', back)).toBe(true);
    expect((await import('node:fs')).readFileSync(back).equals(bytes)).toBe(true);
    expect(await store.download('events/project_id=p1/date=2026-11-22/gone.bin', join(tempDir(), 'gone'))).toBe(false);
    // Bytes in memory (a replay segment's blob) go up in parts past multipart_bytes the same way.
    await store.putBytes('replay-segments/big.json.gz', bytes);
    expect((await store.get('replay-segments/big.json.gz'))?.equals(bytes)).toBe(true);
    expect(await store.get('replay-segments/gone.json.gz')).toBeUndefined();
    client.destroy();
    store.close();
  });
});
