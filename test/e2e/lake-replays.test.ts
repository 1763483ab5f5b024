// Issue #14 on the lake: replay segments posted to a parquet-only service are staged, flushed to
// replays/project_id=…/date=… and read back (metadata, segments, list filters) from staging, from
// the lake and from a query node over the same lake; a re-post stays one segment; retention drops
// partitions and the blobs no kept row references. The files are read back with hyparquet.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parquetReadObjects, parquetSchema, parquetMetadata } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParquetExporter } from '../../exporters/parquet/exporter.js';
import { listDates, listFiles } from '../../exporters/parquet/lake.js';
import { packageRoot } from '../../src/paths.js';
import { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { postChunk, rrwebEvents } from '../support/replays.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

const DAY_MS = 24 * 3600 * 1000;
const T0 = Date.now() - 60_000;
const newId = () => `rpl_${randomUUID().replaceAll('-', '')}`;
// Flushes only when the test says so.
const lakeYaml = readFileSync(join(packageRoot, 'config/examples/lake.yaml'), 'utf8').replace('interval_ms: 10000', 'interval_ms: 3600000');

const root = tempDir('faultline-lake-replays-');
const dataDir = join(root, 'writer');
const lake = join(dataDir, 'lake');
let svc: TestService;
let shopKey: string;
const ids = { a: newId(), b: newId(), shop: newId(), test: newId() };
const first = rrwebEvents(T0, 4, { text: 'first copy' });

const parquet = () => svc.service.exporter('parquet') as unknown as ParquetExporter;
const blobPath = (events: unknown) => {
  const sha = SegmentBlobs.digest(JSON.stringify(events));
  return join(lake, 'replay-segments', sha.slice(0, 2), `${sha}.json.gz`);
};
const lakeFiles = (project = 'default') => listDates(lake, 'replays', project).flatMap((date) => listFiles(lake, 'replays', project, date));

async function readRows(files: string[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const path of files) {
    const buffer = readFileSync(path);
    const file = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
    rows.push(...(await parquetReadObjects({ file, compressors })));
  }
  return rows;
}

async function json<T>(service: TestService, path: string, key?: string): Promise<T> {
  const response = await service.api(path, { key });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  svc = await startService({ yaml: lakeYaml, dataDir, keepData: true });
  await catalogOf(svc.service.host).createProject({ id: 'shop', name: 'Shop' });
  shopKey = (await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'shop' })).secret;
  const post = async (form: Parameters<typeof postChunk>[1], fields: Record<string, unknown>, events: unknown, key?: string) =>
    expect((await postChunk(svc, form, fields, events, key)).status).toBe(202);
  await post('events', { replay_id: ids.a, segment_id: 0, environment: 'prod', user: { id: 'u-1' }, release: 'shop@1' }, first);
  await post('raw', { replay_id: ids.a, segment_id: 1, urls: ['https://shop.example/pay'] }, rrwebEvents(T0 + 5_000, 2, { fullSnapshot: false }));
  await post('data-gzip', { replay_id: ids.b, segment_id: 0, environment: 'staging', release: 'shop@2' }, rrwebEvents(T0 + 1_000, 3, { text: 'b' }));
  await post('events', { replay_id: ids.shop, segment_id: 0 }, rrwebEvents(T0, 3, { text: 'shop' }), shopKey);
  await post('events', { replay_id: ids.test, segment_id: 0 }, rrwebEvents(T0, 3, { text: 'test dataset' }), svc.testKey);
});
afterAll(async () => {
  await svc.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('replays in the parquet lake', () => {
  it('serves staged segments, and a re-post before the flush stays one row', async () => {
    expect((await postChunk(svc, 'events', { replay_id: ids.a, segment_id: 0 }, rrwebEvents(T0, 7, { text: 'second copy' }))).status).toBe(202);
    const replay = await json<Record<string, unknown>>(svc, `/v1/replays/${ids.a}`);
    expect(replay).toMatchObject({ id: ids.a, segment_count: 2, event_count: 6, environment: 'prod', release: 'shop@1', user: { id: 'u-1' } });
    expect(await json(svc, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
    expect(existsSync(blobPath(first))).toBe(true);
    expect(lakeFiles()).toEqual([]);
  });

  it('flushes segment rows to replays/project_id=…/date=…, one row per segment, typed columns', async () => {
    const [result] = await parquet().flushNow('replays');
    expect(result.files.length).toBe(2); // default's partition (both datasets) and shop's
    const date = new Date(T0).toISOString().slice(0, 10);
    expect(listDates(lake, 'replays', 'default')).toEqual([date]);
    expect(listDates(lake, 'replays', 'shop')).toEqual([date]);
    const files = lakeFiles();
    const rows = await readRows(files);
    expect(rows.map((row) => `${row.dataset as string}/${row.replay_id as string}/${row.segment_id as number}`).sort()).toEqual(
      [`live/${ids.a}/0`, `live/${ids.a}/1`, `live/${ids.b}/0`, `test/${ids.test}/0`].sort(),
    );
    const a0 = rows.find((row) => row.replay_id === ids.a && row.segment_id === 0)!;
    expect(a0).toMatchObject({ environment: 'prod', user_id: 'u-1', event_count: 4, has_full_snapshot: true, urls: ['https://shop.example/checkout'] });
    expect(a0.started_at).toEqual(new Date(T0));
    expect(a0.blob).toBe(SegmentBlobs.digest(JSON.stringify(first)));
    expect(JSON.parse(a0.doc as string)).toMatchObject({ replay_id: ids.a, segment_id: 0 });
    // The hive columns are in the path only; the metadata says ZSTD.
    const buffer = readFileSync(files[0]);
    const metadata = parquetMetadata(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
    const columns = parquetSchema(metadata).children.map((child) => child.element.name);
    expect(columns).not.toContain('project_id');
    expect(columns).toEqual(expect.arrayContaining(['replay_id', 'segment_id', 'started_at', 'urls', 'error_ids', 'trace_ids', 'blob', 'doc']));
    expect(metadata.row_groups[0].columns[0].meta_data?.codec).toBe('ZSTD');
    expect(await parquet().stagedRows('replays')).toBe(0);
  });

  it('reads from the lake: metadata, segments, list filters, isolation; a re-post after the flush stays one segment', async () => {
    expect((await postChunk(svc, 'data-zlib', { replay_id: ids.a, segment_id: 0 }, rrwebEvents(T0, 9))).status).toBe(202);
    const [again] = await parquet().flushNow('replays');
    expect(again.files).toEqual([]); // the lake has that segment: nothing written
    const a0 = (await readRows(lakeFiles())).filter((row) => row.replay_id === ids.a && row.segment_id === 0);
    expect(a0.map((row) => row.event_count)).toEqual([4]);
    expect(await json(svc, `/v1/replays/${ids.a}`)).toMatchObject({
      segment_count: 2,
      event_count: 6,
      urls: expect.arrayContaining(['https://shop.example/pay']),
    });
    expect(await json(svc, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
    const gz = await fetch(`${svc.baseUrl}/v1/replays/${ids.a}/segments/1`, { headers: { authorization: `Bearer ${svc.liveKey}`, 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.json()).toEqual(rrwebEvents(T0 + 5_000, 2, { fullSnapshot: false }));
    const list = (filter: string) => json<{ data: Array<{ id: string }> }>(svc, `/v1/replays?project_id=default${filter}`).then((r) => r.data.map((x) => x.id));
    expect(await list('')).toEqual([ids.b, ids.a]); // newest first
    expect(await list('&environment=staging')).toEqual([ids.b]);
    expect(await list('&release=shop@1')).toEqual([ids.a]);
    expect(await list('&user.id=u-1')).toEqual([ids.a]);
    expect(await list('&url=/pay')).toEqual([ids.a]);
    expect(await list('&has_errors=true')).toEqual([]);
    // Another project's and the other dataset's replays are not there (svc.liveKey reaches every project).
    const defaultKey = (await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'default' })).secret;
    expect((await svc.api(`/v1/replays/${ids.shop}`, { key: defaultKey })).status).toBe(404);
    expect((await svc.api(`/v1/replays/${ids.shop}/segments/0`, { key: defaultKey })).status).toBe(404);
    expect((await svc.api(`/v1/replays/${ids.test}`, { key: defaultKey })).status).toBe(404);
    expect((await svc.api(`/v1/replays/${ids.a}`, { key: svc.testKey })).status).toBe(404);
    expect(await json(svc, `/v1/replays/${ids.shop}`, shopKey)).toMatchObject({ project_id: 'shop' });
    expect(await json(svc, `/v1/replays/${ids.test}`, svc.testKey)).toMatchObject({ segment_count: 1 });
  });

  it('serves the same replays from a read-only query node over the lake', async () => {
    const writerAnswer = await json(svc, `/v1/replays/${ids.a}`);
    const query = await startService({
      yaml: `
exporters:
  parquet:
    path: ${lake}
service:
  storage:
    replays: [parquet]
`,
      dataDir: join(root, 'query'),
    });
    try {
      const replay = await json<Record<string, unknown>>(query, `/v1/replays/${ids.a}`);
      // The same replay, but links built from the query node's own app URL.
      const { streams: _s1, ...mine } = replay as { streams: unknown };
      const { streams: _s2, ...theirs } = writerAnswer as { streams: unknown };
      expect(mine).toEqual(theirs);
      expect(await json(query, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
      expect((await json<{ data: Array<{ id: string }> }>(query, '/v1/replays?project_id=default&environment=prod')).data.map((r) => r.id)).toEqual([ids.a]);
      expect(existsSync(join(root, 'query', 'lake'))).toBe(false);
    } finally {
      await query.stop();
    }
  });

  it('retention drops replay partitions before the cutoff and the blobs no kept row references', async () => {
    const old = newId();
    const oldEvents = rrwebEvents(Date.now() - 20 * DAY_MS, 3, { text: 'old only' });
    expect((await postChunk(svc, 'events', { replay_id: old, segment_id: 0 }, oldEvents)).status).toBe(202);
    await parquet().flushNow('replays');
    const oldDate = new Date(Date.now() - 20 * DAY_MS).toISOString().slice(0, 10);
    expect(listDates(lake, 'replays', 'default')).toContain(oldDate);
    expect(existsSync(blobPath(oldEvents))).toBe(true);
    // The blob of a re-post the lake never kept goes too.
    const orphan = blobPath(rrwebEvents(T0, 9));
    expect(existsSync(orphan)).toBe(true);

    const result = await svc.service.runRetention({ replays_days: 10 });
    expect(result.deletedPartitions).toContain(join(lake, 'replays', 'project_id=default', `date=${oldDate}`));
    expect(listDates(lake, 'replays', 'default')).not.toContain(oldDate);
    expect(existsSync(blobPath(oldEvents))).toBe(false);
    expect(existsSync(orphan)).toBe(false);
    expect((await svc.api(`/v1/replays/${old}`)).status).toBe(404);
    expect(existsSync(blobPath(first))).toBe(true);
    expect(await json(svc, `/v1/replays/${ids.a}/segments/0`)).toEqual(first);
    const kept = readdirSync(join(lake, 'replay-segments'), { recursive: true }).filter((name) => String(name).endsWith('.json.gz'));
    expect(kept.length).toBe(5); // a/0, a/1, b/0, shop/0, test/0: the re-posts' copies were never kept
  });
});
