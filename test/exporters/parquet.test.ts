// The parquet exporter against real DuckDB files in a temporary directory. Every Parquet file is
// read back with hyparquet, a reader independent of DuckDB (its ZSTD decoder from hyparquet-compressors).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parquetMetadata, parquetReadObjects, parquetSchema, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { compactionTmpName, journalCompaction, planCompactions, publishCompaction, RowCounts, writeCompaction } from '../../exporters/parquet/compactor.js';
import { parquetConfigSchema } from '../../exporters/parquet/config.js';
import { type ParquetExporter } from '../../exporters/parquet/exporter.js';
import { parquetFactory } from '../../exporters/parquet/factory.js';
import { claimBatch, writeBatch } from '../../exporters/parquet/flusher.js';
import type { Item, Tenant } from '../../src/engine/item.js';
import { toEventDocument } from '../../src/records/event-document.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { toSpanDocument } from '../../src/records/span-document.js';
import type { Span } from '../../src/records/span.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { fileListSql, LAKE_READ_SQL, type Lake, type LakeSignal } from '../../exporters/parquet/lake.js';
import { lakeTables } from '../../exporters/parquet/migrations.js';
import { testHost } from '../support/test-host.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-parquet-'));
  dirs.push(dir);
  return dir;
}

const QUIET = { flush: { interval_ms: 3_600_000 }, compaction: { interval_ms: 3_600_000 } };

interface Opened {
  db: Database;
  exporter: ParquetExporter;
  lake: string;
  /** The lake as the exporter's modules see it (the unnamed instance's tables). */
  store: Lake;
}

async function open(dir: string, config: Record<string, unknown> = QUIET, start = true): Promise<Opened> {
  const { host } = await testHost({ dataDir: dir, extensions: ['duckdb'] });
  const db = databaseOf(host);
  const lake = join(dir, 'lake');
  const exporter = parquetFactory.create({
    id: { type: 'parquet', text: 'parquet' },
    config: parquetConfigSchema.parse(config),
    host,
    readOnly: false,
  }) as ParquetExporter;
  if (start) await exporter.start();
  return { db, exporter, lake, store: { db, path: lake, tables: lakeTables(undefined), writer: '', changed: () => undefined } };
}

const tenant = (projectId: string, dataset: Tenant['dataset'] = 'live'): Tenant => ({ orgId: 'default', projectId, dataset });

let seq = 0;
function event(project: string, timestamp: string, overrides: Partial<ErrorEvent> = {}, dataset: Tenant['dataset'] = 'live'): Item<ErrorEvent> {
  seq++;
  const data: ErrorEvent = {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    timestamp,
    environment: 'production',
    release: 'shop@1.4.2',
    release_info: { app: 'shop', version: '1.4.2' },
    level: 'error',
    message: `checkout failed ${seq}`,
    platform: 'javascript',
    exception: {
      type: 'TypeError',
      value: "Cannot read properties of undefined (reading 'id')",
      stacktrace: [
        { filename: 'node_modules/lib.js', function: 'dispatch', lineno: 1, colno: 200, in_app: false },
        { filename: 'src/cart.js', abs_path: '/app/src/cart.js', module: 'cart', function: 'totalOf', lineno: 12, colno: 7, in_app: true },
      ],
    },
    user: { id: '42', email: 'ada@example.com' },
    tags: { route: '/checkout', browser: 'Firefox' },
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    breadcrumbs: [{ timestamp, category: 'ui.click', message: 'button#pay' }],
    contexts: { os: { name: 'Linux' } },
    project_id: project,
    received_at: '2026-11-23T12:00:00.123Z',
    issue_id: '5e0c1d2a9b3f4e61',
    title: "TypeError: Cannot read properties of undefined (reading 'id')",
    culprit: 'totalOf (src/cart.js)',
    processing_errors: [],
    ...overrides,
  };
  return { data, tenant: tenant(project, dataset), receivedAt: Date.now(), size: 2048 };
}

function span(project: string, startIso: string, overrides: Partial<Span> = {}): Item<Span> {
  seq++;
  const start = BigInt(Date.parse(startIso)) * 1_000_000n + 123_456n; // below the millisecond: exact nanoseconds
  const data: Span = {
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    span_id: seq.toString(16).padStart(16, '0'),
    parent_span_id: '',
    name: 'GET /checkout',
    service_name: 'web',
    start_time_unix_nano: start,
    end_time_unix_nano: start + 250_500_000n,
    status: 'ok',
    kind: 'server',
    attributes: { 'http.route': '/checkout', 'http.response.status_code': 200, retry: false, tags: ['a', 'b'] },
    resource_attributes: { 'service.name': 'web', 'service.version': '1.4.2' },
    events: [{ name: 'cache.miss', time_unix_nano: start + 1_000n, attributes: { key: 'cart:42' } }],
    links: [{ trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', attributes: {} }],
    project_id: project,
    received_at: '2026-11-23T12:00:00.456Z',
    ...overrides,
  };
  return { data, tenant: tenant(project), receivedAt: Date.now(), size: 512 };
}

// ---------------------------------------------------------------------------------------------
// Reading the lake back, independently of DuckDB
// ---------------------------------------------------------------------------------------------

function arrayBuffer(path: string): ArrayBuffer {
  const buffer = readFileSync(path);
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
}

/** Every published Parquet file of a signal, relative to the signal directory. */
function lakeFiles(lake: string, signal: LakeSignal): string[] {
  const root = join(lake, signal);
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith('.parquet') && !name.split('/').pop()!.startsWith('.')).sort();
}

async function readFile(path: string): Promise<{ rows: Record<string, unknown>[]; metadata: FileMetaData }> {
  const file = arrayBuffer(path);
  return { rows: await parquetReadObjects({ file, compressors }), metadata: parquetMetadata(file) };
}

/** All rows of a signal with the partition they came from. */
async function readLake(lake: string, signal: LakeSignal): Promise<Array<Record<string, unknown> & { _file: string }>> {
  const out: Array<Record<string, unknown> & { _file: string }> = [];
  for (const file of lakeFiles(lake, signal)) {
    const { rows } = await readFile(join(lake, signal, file));
    for (const row of rows) out.push({ ...row, _file: file });
  }
  return out;
}

const eventIds = async (lake: string) => (await readLake(lake, 'events')).map((row) => row.id as string).sort();
const spanIds = async (lake: string) => (await readLake(lake, 'traces')).map((row) => row.span_id as string).sort();

async function stagedCount(db: Database, signal: LakeSignal): Promise<number> {
  const table = signal === 'events' ? 'lake_staging_events' : 'lake_staging_spans';
  const result = await db.reader().runAndReadAll(`SELECT count(*) FROM ${table}`);
  return Number(result.getRows()[0][0]);
}

async function journal(db: Database, table: 'lake_flushes' | 'lake_compactions'): Promise<string[]> {
  const result = await db.reader().runAndReadAll(`SELECT state FROM ${table}`);
  return result.getRows().map(([state]) => String(state));
}

const sorted = (values: string[]) => [...values].sort();

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('parquet exporter: layout and schema', () => {
  it('writes events into project_id=/date= partitions with typed columns, ZSTD, read back by hyparquet', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir);
    const items = [
      event('p1', '2026-11-22T23:59:59.999Z'),
      event('p1', '2026-11-23T00:00:00.000Z', { tags: undefined, user: undefined, message: undefined, trace_id: undefined }),
      event('p2', '2026-11-22T10:00:00.000Z', { exception: { type: 'Error', value: 'no frames' } }),
      event('p2', '2026-11-23T10:00:00.000Z', { replay_id: 'r-1' }, 'test'),
      event('p1', '2026-11-22T08:00:00.000Z'),
    ];
    await exporter.export('events', items);
    expect(lakeFiles(lake, 'events')).toEqual([]); // acknowledged = staged, not yet in the lake
    expect(await stagedCount(db, 'events')).toBe(5);

    const [result] = await exporter.flushNow('events');
    expect(result.rows).toBe(5);
    const batch = result.batchId!;
    expect(lakeFiles(lake, 'events')).toEqual([
      `project_id=p1/date=2026-11-22/part-${batch}-0.parquet`,
      `project_id=p1/date=2026-11-23/part-${batch}-0.parquet`,
      `project_id=p2/date=2026-11-22/part-${batch}-0.parquet`,
      `project_id=p2/date=2026-11-23/part-${batch}-0.parquet`,
    ]);
    expect(await stagedCount(db, 'events')).toBe(0);
    expect(await journal(db, 'lake_flushes')).toEqual(['done']);
    expect(existsSync(join(lake, '.tmp', `events-${batch}`))).toBe(false);

    const rows = await readLake(lake, 'events');
    expect(rows.map((row) => row.id).sort()).toEqual(items.map((item) => item.data.id).sort());
    // Sorted by time inside a file.
    const p1day = rows.filter((row) => row._file.startsWith('project_id=p1/date=2026-11-22'));
    expect(p1day.map((row) => (row.timestamp as Date).toISOString())).toEqual(['2026-11-22T08:00:00.000Z', '2026-11-22T23:59:59.999Z']);

    for (const item of items) {
      const e = item.data;
      const row = rows.find((r) => r.id === e.id)!;
      expect(row._file.split('/').slice(0, 2)).toEqual([`project_id=${item.tenant.projectId}`, `date=${e.timestamp.slice(0, 10)}`]);
      // The hive columns live in the path only.
      expect(row).not.toHaveProperty('project_id');
      expect(row).not.toHaveProperty('date');
      const { _file, ...columns } = row;
      expect(Object.keys(columns)).toEqual([
        'id',
        'dataset',
        'timestamp',
        'received_at',
        'issue_id',
        'environment',
        'release',
        'level',
        'exception_type',
        'exception_value',
        'message',
        'title',
        'culprit',
        'user_id',
        'user_email',
        'trace_id',
        'replay_id',
        'tags',
        'frames',
        'doc',
      ]);
      expect(row.dataset).toBe(item.tenant.dataset);
      expect(row.timestamp).toBeInstanceOf(Date);
      expect((row.timestamp as Date).toISOString()).toBe(e.timestamp);
      expect(row.received_at).toBeInstanceOf(Date);
      expect((row.received_at as Date).toISOString()).toBe(e.received_at);
      expect(row.issue_id).toBe(e.issue_id);
      expect(row.environment).toBe(e.environment);
      expect(row.release).toBe(e.release);
      expect(row.level).toBe(e.level);
      expect(row.exception_type).toBe(e.exception.type);
      expect(row.exception_value).toBe(e.exception.value);
      expect(row.message ?? undefined).toBe(e.message);
      expect(row.title).toBe(e.title);
      expect(row.culprit).toBe(e.culprit);
      expect(row.user_id ?? undefined).toBe(e.user?.id);
      expect(row.user_email ?? undefined).toBe(e.user?.email);
      expect(row.trace_id ?? undefined).toBe(e.trace_id);
      expect(row.replay_id ?? undefined).toBe(e.replay_id);
      expect(row.tags).toEqual(e.tags ?? {});
      const frames = row.frames as Array<Record<string, unknown>>;
      expect(Array.isArray(frames)).toBe(true);
      expect(frames.length).toBe(e.exception.stacktrace?.length ?? 0);
      for (const [i, frame] of (e.exception.stacktrace ?? []).entries()) {
        for (const key of ['filename', 'abs_path', 'module', 'function', 'lineno', 'colno', 'in_app'] as const) {
          expect(frames[i][key] ?? undefined).toEqual(frame[key]);
        }
        expect(typeof frames[i].lineno).toBe('number');
        expect(typeof frames[i].in_app).toBe('boolean');
      }
      expect(typeof row.doc).toBe('string');
      expect(JSON.parse(row.doc as string)).toEqual(JSON.parse(JSON.stringify(toEventDocument(e))));
    }

    // Physical types, compression and row groups, from the files' footers.
    for (const file of lakeFiles(lake, 'events')) {
      const { metadata } = await readFile(join(lake, 'events', file));
      const columns = metadata.row_groups.flatMap((group) => group.columns);
      expect(columns.length).toBeGreaterThan(0);
      expect(new Set(columns.map((column) => column.meta_data!.codec))).toEqual(new Set(['ZSTD']));
      const byName = new Map(parquetSchema(metadata).children.map((child) => [child.element.name, child]));
      expect(byName.get('timestamp')!.element.logical_type).toMatchObject({ type: 'TIMESTAMP', unit: 'MICROS' });
      expect(byName.get('received_at')!.element.logical_type).toMatchObject({ type: 'TIMESTAMP' });
      expect(byName.get('id')!.element.type).toBe('BYTE_ARRAY');
      expect(byName.get('tags')!.element.converted_type).toBe('MAP');
      expect(byName.get('frames')!.element.converted_type).toBe('LIST');
      expect(metadata.row_groups.length).toBe(1);
    }

    // The read layer's projection works over the files, with the hive columns back.
    const paths = lakeFiles(lake, 'events').map((file) => join(lake, 'events', file));
    const read = await db
      .reader()
      .runAndReadAll(`SELECT ${LAKE_READ_SQL.events} FROM read_parquet(${fileListSql(paths)}, hive_partitioning = true) ORDER BY id`);
    const readRows = read.getRowObjectsJS();
    expect(readRows.map((row) => `${row.project_id}/${row.id}`)).toEqual(
      items.map((item) => `${item.tenant.projectId}/${item.data.id}`).sort((a, b) => a.slice(3).localeCompare(b.slice(3))),
    );

    await exporter.shutdown();
    await db.close();
  });

  it('writes spans with exact nanoseconds, typed times and JSON attributes, partitioned by start (UTC)', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir);
    const items = [
      span('p1', '2026-11-22T23:59:59.900Z'),
      span('p1', '2026-11-23T00:00:00.100Z', { parent_span_id: 'aaaaaaaaaaaaaaaa', status: 'error', kind: 'client', links: [], events: [] }),
      span('p2', '2026-11-22T12:00:00.000Z', { attributes: {} }),
      span('p2', '2026-11-23T12:00:00.000Z', { service_name: 'db' }),
    ];
    await exporter.export('traces', items);
    const [result] = await exporter.flushNow('traces');
    expect(result.rows).toBe(4);
    expect(lakeFiles(lake, 'traces')).toEqual([
      `project_id=p1/date=2026-11-22/part-${result.batchId}-0.parquet`,
      `project_id=p1/date=2026-11-23/part-${result.batchId}-0.parquet`,
      `project_id=p2/date=2026-11-22/part-${result.batchId}-0.parquet`,
      `project_id=p2/date=2026-11-23/part-${result.batchId}-0.parquet`,
    ]);
    const rows = await readLake(lake, 'traces');
    expect(rows).toHaveLength(4);
    for (const item of items) {
      const s = item.data;
      const row = rows.find((r) => r.span_id === s.span_id)!;
      const { _file, ...columns } = row;
      expect(Object.keys(columns)).toEqual([
        'trace_id',
        'span_id',
        'parent_span_id',
        'name',
        'service_name',
        'dataset',
        'start_time',
        'start_time_unix_nano',
        'end_time_unix_nano',
        'duration_ms',
        'status',
        'kind',
        'received_at',
        'attributes',
        'resource_attributes',
        'events',
        'links',
        'doc',
      ]);
      expect(
        _file.startsWith(`project_id=${item.tenant.projectId}/date=${new Date(Number(s.start_time_unix_nano / 1_000_000n)).toISOString().slice(0, 10)}/`),
      ).toBe(true);
      expect(row.trace_id).toBe(s.trace_id);
      expect(row.parent_span_id).toBe(s.parent_span_id);
      expect(row.name).toBe(s.name);
      expect(row.service_name).toBe(s.service_name);
      expect(row.dataset).toBe('live');
      expect(row.start_time).toBeInstanceOf(Date);
      expect((row.start_time as Date).getTime()).toBe(Number(s.start_time_unix_nano / 1_000_000n));
      expect(row.start_time_unix_nano).toBe(s.start_time_unix_nano); // int64, exact
      expect(row.end_time_unix_nano).toBe(s.end_time_unix_nano);
      expect(typeof row.duration_ms).toBe('number');
      expect(row.duration_ms).toBeCloseTo(250.5, 6);
      expect(row.status).toBe(s.status);
      expect(row.kind).toBe(s.kind);
      expect(row.received_at).toBeInstanceOf(Date);
      expect((row.received_at as Date).toISOString()).toBe(s.received_at);
      const doc = JSON.parse(JSON.stringify(toSpanDocument(s)));
      expect(JSON.parse(row.doc as string)).toEqual(doc);
      expect(JSON.parse(row.attributes as string)).toEqual(s.attributes);
      expect(JSON.parse(row.resource_attributes as string)).toEqual(s.resource_attributes);
      expect(JSON.parse(row.events as string)).toEqual(doc.events);
      expect(JSON.parse(row.links as string)).toEqual(s.links);
    }
    for (const file of lakeFiles(lake, 'traces')) {
      const { metadata } = await readFile(join(lake, 'traces', file));
      expect(new Set(metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!.codec)))).toEqual(new Set(['ZSTD']));
      const byName = new Map(parquetSchema(metadata).children.map((child) => [child.element.name, child.element]));
      expect(byName.get('start_time_unix_nano')!.type).toBe('INT64');
      expect(byName.get('duration_ms')!.type).toBe('DOUBLE');
      expect(byName.get('start_time')!.logical_type).toMatchObject({ type: 'TIMESTAMP' });
    }
    await exporter.shutdown();
    await db.close();
  });

  it('config: every key has a default, unknown keys are refused', () => {
    expect(parquetConfigSchema.parse({})).toEqual({
      ack: 'staging',
      flush: { max_rows: 50_000, max_bytes: 64 * 1024 * 1024, interval_ms: 10_000, linger_ms: 200 },
      compaction: { enabled: true, min_rows: 5_000, interval_ms: 60_000 },
      max_batch_items: 5000,
    });
    expect(parquetConfigSchema.parse({ flush: { max_rows: 10 } }).flush).toEqual({
      max_rows: 10,
      max_bytes: 64 * 1024 * 1024,
      interval_ms: 10_000,
      linger_ms: 200,
    });
    expect(parquetConfigSchema.safeParse({ flush: { rows: 10 } }).success).toBe(false);
    expect(parquetConfigSchema.safeParse({ compression: 'snappy' }).success).toBe(false);
  });
});

describe('parquet exporter: durability and recovery', () => {
  it('a crash between flushes loses nothing: staged rows are flushed after a restart, each once', async () => {
    const dir = tempDir();
    const first = await open(dir);
    const events = [event('p1', '2026-11-22T10:00:00.000Z'), event('p2', '2026-11-22T11:00:00.000Z')];
    const spans = [span('p1', '2026-11-22T10:00:00.000Z')];
    await first.exporter.export('events', events);
    await first.exporter.export('traces', spans);
    await first.db.close(); // no shutdown: the process died

    const second = await open(dir);
    expect(second.exporter.stagedRows('events')).toBe(2);
    await second.exporter.flushNow();
    expect(await eventIds(second.lake)).toEqual(sorted(events.map((e) => e.data.id)));
    expect(await spanIds(second.lake)).toEqual(sorted(spans.map((s) => s.data.span_id)));
    expect(await stagedCount(second.db, 'events')).toBe(0);
    await second.exporter.shutdown();
    await second.db.close();
  });

  it('a crash after the claim (a) is redone at start: every row once', async () => {
    const dir = tempDir();
    const first = await open(dir);
    const events = [event('p1', '2026-11-22T10:00:00.000Z'), event('p1', '2026-11-23T10:00:00.000Z')];
    await first.exporter.export('events', events);
    const claimed = await claimBatch(first.store, 'events');
    expect(claimed?.rows).toBe(2);
    // A flush that died in the middle of its COPY leaves a temporary directory.
    mkdirSync(join(first.lake, '.tmp', `events-${claimed!.batchId}`, 'project_id=p1', 'date=2026-11-22'), { recursive: true });
    writeFileSync(join(first.lake, '.tmp', `events-${claimed!.batchId}`, 'project_id=p1', 'date=2026-11-22', `part-${claimed!.batchId}-0.parquet`), 'torn');
    expect(await journal(first.db, 'lake_flushes')).toEqual(['pending']);
    await first.db.close();

    const second = await open(dir); // recovery runs in start()
    expect(await eventIds(second.lake)).toEqual(sorted(events.map((e) => e.data.id)));
    expect(await journal(second.db, 'lake_flushes')).toEqual(['done']);
    expect(await stagedCount(second.db, 'events')).toBe(0);
    expect(existsSync(join(second.lake, '.tmp', `events-${claimed!.batchId}`))).toBe(false);
    await second.exporter.flushNow();
    expect(await eventIds(second.lake)).toEqual(sorted(events.map((e) => e.data.id)));
    await second.exporter.shutdown();
    await second.db.close();
  });

  it('a crash after the write (b) is redone at start: the published files are replaced, every row once', async () => {
    const dir = tempDir();
    const first = await open(dir);
    const events = [event('p1', '2026-11-22T10:00:00.000Z'), event('p2', '2026-11-22T10:00:00.000Z'), event('p2', '2026-11-24T10:00:00.000Z')];
    const spans = [span('p1', '2026-11-22T10:00:00.000Z'), span('p1', '2026-11-22T10:00:01.000Z')];
    await first.exporter.export('events', events);
    await first.exporter.export('traces', spans);
    const e = (await claimBatch(first.store, 'events'))!;
    const published = await writeBatch(first.store, 'events', e.batchId);
    expect(published).toHaveLength(3);
    const s = (await claimBatch(first.store, 'traces'))!;
    await writeBatch(first.store, 'traces', s.batchId);
    // Rows staged after the claim belong to the next flush, not to the pending batch.
    const late = event('p1', '2026-11-22T12:00:00.000Z');
    await first.exporter.export('events', [late]);
    expect(await eventIds(first.lake)).toEqual(sorted(events.map((x) => x.data.id))); // in the lake and still staged
    await first.db.close();

    const second = await open(dir);
    expect(await eventIds(second.lake)).toEqual(sorted(events.map((x) => x.data.id)));
    expect(await spanIds(second.lake)).toEqual(sorted(spans.map((x) => x.data.span_id)));
    expect(await journal(second.db, 'lake_flushes')).toEqual(['done', 'done']);
    expect(second.exporter.stagedRows('events')).toBe(1);
    await second.exporter.flushNow();
    expect(await eventIds(second.lake)).toEqual(sorted([...events, late].map((x) => x.data.id)));
    await second.exporter.shutdown();
    await second.db.close();
  });

  it('shutdown flushes what is staged', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir);
    const events = [event('p1', '2026-11-22T10:00:00.000Z'), event('p2', '2026-11-23T10:00:00.000Z')];
    const spans = [span('p2', '2026-11-22T10:00:00.000Z')];
    await Promise.all([exporter.export('events', events), exporter.export('traces', spans)]);
    await exporter.shutdown();
    expect(await eventIds(lake)).toEqual(sorted(events.map((x) => x.data.id)));
    expect(await spanIds(lake)).toEqual(sorted(spans.map((x) => x.data.span_id)));
    expect(await stagedCount(db, 'events')).toBe(0);
    expect(await stagedCount(db, 'traces')).toBe(0);
    await db.close();
  });
});

describe('parquet exporter: flush triggers', () => {
  it('flushes when max_rows are staged, without waiting for the interval', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir, { ...QUIET, flush: { max_rows: 5, interval_ms: 3_600_000 } });
    const first = [1, 2, 3, 4].map(() => event('p1', '2026-11-22T10:00:00.000Z'));
    await exporter.export('events', first);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lakeFiles(lake, 'events')).toEqual([]);
    const fifth = event('p1', '2026-11-22T10:00:00.000Z');
    await exporter.export('events', [fifth]);
    await vi.waitFor(() => expect(lakeFiles(lake, 'events')).toHaveLength(1), { timeout: 5000 });
    await vi.waitFor(async () => expect(await stagedCount(db, 'events')).toBe(0), { timeout: 5000 });
    expect(await eventIds(lake)).toEqual(sorted([...first, fifth].map((x) => x.data.id)));
    await exporter.shutdown();
    await db.close();
  });

  it('flushes when max_bytes are staged', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir, { ...QUIET, flush: { max_bytes: 100, interval_ms: 3_600_000 } });
    await exporter.export('traces', [span('p1', '2026-11-22T10:00:00.000Z')]);
    await vi.waitFor(() => expect(lakeFiles(lake, 'traces')).toHaveLength(1), { timeout: 5000 });
    await exporter.shutdown();
    await db.close();
  });

  it('flushes a single staged row on the interval', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir, { ...QUIET, flush: { interval_ms: 50 } });
    const one = event('p1', '2026-11-22T10:00:00.000Z');
    await exporter.export('events', [one]);
    await vi.waitFor(() => expect(lakeFiles(lake, 'events')).toHaveLength(1), { timeout: 5000 });
    await vi.waitFor(async () => expect(await journal(db, 'lake_flushes')).toEqual(['done']), { timeout: 5000 });
    expect(await eventIds(lake)).toEqual([one.data.id]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // nothing staged: no empty flushes
    expect(await journal(db, 'lake_flushes')).toEqual(['done']);
    await exporter.shutdown();
    await db.close();
  });
});

describe('parquet exporter: compaction', () => {
  async function tenTinyFlushes(opened: Opened, check = true): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const item = event('p1', `2026-11-22T10:00:0${i}.000Z`);
      ids.push(item.data.id);
      await opened.exporter.export('events', [item]);
      await opened.exporter.flushNow('events');
    }
    if (check) expect(lakeFiles(opened.lake, 'events')).toHaveLength(10);
    return ids;
  }

  it('merges the small files of a partition into one with the same rows', async () => {
    const dir = tempDir();
    const opened = await open(dir);
    const ids = await tenTinyFlushes(opened);
    // Another partition with one file only: nothing to merge there.
    await opened.exporter.export('events', [event('p2', '2026-11-22T10:00:00.000Z')]);
    await opened.exporter.flushNow('events');

    const [result] = await opened.exporter.compactNow('events');
    expect(result.outputs).toHaveLength(1);
    const files = lakeFiles(opened.lake, 'events').filter((file) => file.startsWith('project_id=p1/'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^project_id=p1\/date=2026-11-22\/part-c[0-9a-f]{32}\.parquet$/);
    const { rows, metadata } = await readFile(join(opened.lake, 'events', files[0]));
    expect(Number(metadata.num_rows)).toBe(10);
    expect(rows.map((row) => row.id as string).sort()).toEqual(sorted(ids));
    expect(rows.map((row) => (row.timestamp as Date).toISOString())).toEqual(rows.map((row) => (row.timestamp as Date).toISOString()).sort());
    expect(new Set(metadata.row_groups.flatMap((g) => g.columns.map((c) => c.meta_data!.codec)))).toEqual(new Set(['ZSTD']));
    expect(lakeFiles(opened.lake, 'events').filter((file) => file.startsWith('project_id=p2/'))).toHaveLength(1);
    expect(await journal(opened.db, 'lake_compactions')).toEqual(['done']);
    // Nothing left to do.
    const [again] = await opened.exporter.compactNow('events');
    expect(again.outputs).toEqual([]);
    await opened.exporter.shutdown();
    await opened.db.close();
  });

  it('writers named like hosts (faultline-worker, faultline-worker-0) share a lake: each compacts only its own files', async () => {
    const shared = join(tempDir(), 'lake');
    const config = (writer: string) => ({ ...QUIET, path: shared, writer_id: writer });
    expect(parquetConfigSchema.safeParse(config('faultline-worker-0')).success).toBe(true);
    expect(parquetConfigSchema.safeParse(config('web-1.pod.cluster_local')).success).toBe(true);
    for (const bad of ['..', '.hidden', '-rf', 'a/b', "a'b", 'a b', 'x'.repeat(65)])
      expect(parquetConfigSchema.safeParse(config(bad)).success, bad).toBe(false);

    const first = await open(tempDir(), config('faultline-worker'));
    const second = await open(tempDir(), config('faultline-worker-0'));
    const own = { first: [] as string[], second: [] as string[] };
    for (let i = 0; i < 3; i++) {
      for (const [name, opened] of [
        ['first', first],
        ['second', second],
      ] as const) {
        const item = event('p1', `2026-11-22T10:00:0${i}.000Z`);
        own[name].push(item.data.id);
        await opened.exporter.export('events', [item]);
        await opened.exporter.flushNow('events');
      }
    }
    const names = () => lakeFiles(shared, 'events').map((file) => file.split('/').pop()!);
    expect(names().filter((name) => name.startsWith('part-faultline-worker-0-'))).toHaveLength(3);
    // faultline-worker's prefix also starts faultline-worker-0's names: it must merge its three files only.
    const [merged] = await first.exporter.compactNow('events');
    expect(merged.outputs).toHaveLength(1);
    const after = names();
    expect(after.filter((name) => /^part-faultline-worker-c[0-9a-f]+\.parquet$/.test(name))).toHaveLength(1);
    expect(after.filter((name) => /^part-faultline-worker-0-\d+-\d+\.parquet$/.test(name))).toHaveLength(3);
    expect(after).toHaveLength(4);
    const { rows } = await readFile(merged.outputs[0]);
    expect(rows.map((row) => row.id as string).sort()).toEqual(sorted(own.first));
    expect(await eventIds(shared)).toEqual(sorted([...own.first, ...own.second]));
    for (const opened of [first, second]) {
      await opened.exporter.shutdown();
      await opened.db.close();
    }
  });

  it('leaves files of at least min_rows alone', async () => {
    const dir = tempDir();
    const opened = await open(dir, { ...QUIET, compaction: { min_rows: 2, interval_ms: 3_600_000 } });
    await opened.exporter.export('events', [event('p1', '2026-11-22T10:00:00.000Z'), event('p1', '2026-11-22T10:00:01.000Z')]);
    await opened.exporter.flushNow('events');
    await opened.exporter.export('events', [event('p1', '2026-11-22T10:00:02.000Z')]);
    await opened.exporter.flushNow('events');
    const before = lakeFiles(opened.lake, 'events');
    const [result] = await opened.exporter.compactNow('events');
    expect(result.outputs).toEqual([]);
    expect(lakeFiles(opened.lake, 'events')).toEqual(before);
    await opened.exporter.shutdown();
    await opened.db.close();
  });

  it('compacts in the background on its interval', async () => {
    const dir = tempDir();
    const opened = await open(dir, { flush: { interval_ms: 3_600_000 }, compaction: { interval_ms: 50 } });
    const ids = await tenTinyFlushes(opened, false);
    await vi.waitFor(() => expect(lakeFiles(opened.lake, 'events')).toHaveLength(1), { timeout: 5000 });
    expect(await eventIds(opened.lake)).toEqual(sorted(ids));
    await opened.exporter.shutdown();
    await opened.db.close();
  });

  async function pendingCompaction(stopAfterPublish: boolean) {
    const dir = tempDir();
    const opened = await open(dir);
    const ids = await tenTinyFlushes(opened);
    const inputs = lakeFiles(opened.lake, 'events');
    const [plan] = await planCompactions(opened.store, 'events', 5000, new RowCounts());
    expect(plan.inputs).toHaveLength(10);
    const compaction = await journalCompaction(opened.store, plan);
    expect(await writeCompaction(opened.store, compaction)).toBe(10);
    const partition = join(opened.lake, compaction.partitionDir);
    expect(existsSync(join(partition, compactionTmpName(compaction.output)))).toBe(true);
    if (stopAfterPublish) publishCompaction(opened.store, compaction);
    // A reader between publish and the inputs' removal sees every row twice: the read layer de-duplicates by id.
    await opened.db.close();
    const reopened = await open(dir);
    return { ...reopened, ids, inputs, compaction, partition };
  }

  it('recovers a pending compaction whose output exists: removes the inputs', async () => {
    const { db, exporter, lake, ids, compaction, partition } = await pendingCompaction(true);
    const files = lakeFiles(lake, 'events');
    expect(files).toEqual([relative(join(lake, 'events'), join(partition, compaction.output))]);
    expect(await eventIds(lake)).toEqual(sorted(ids));
    expect(await journal(db, 'lake_compactions')).toEqual(['done']);
    await exporter.shutdown();
    await db.close();
  });

  it('recovers a pending compaction whose output does not exist: removes the temporary file, keeps the inputs', async () => {
    const { db, exporter, lake, ids, inputs, compaction, partition } = await pendingCompaction(false);
    expect(existsSync(join(partition, compactionTmpName(compaction.output)))).toBe(false);
    expect(lakeFiles(lake, 'events')).toEqual(inputs);
    expect(await eventIds(lake)).toEqual(sorted(ids));
    expect(await journal(db, 'lake_compactions')).toEqual(['done']);
    // And the next compaction does the work.
    await exporter.compactNow('events');
    expect(lakeFiles(lake, 'events')).toHaveLength(1);
    expect(await eventIds(lake)).toEqual(sorted(ids));
    await exporter.shutdown();
    await db.close();
  });
});

describe('parquet exporter: ack: lake', () => {
  it('an export resolves only once its rows are in a published file, after the linger', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir, { ...QUIET, ack: 'lake', flush: { interval_ms: 3_600_000, linger_ms: 150 } });
    const first = [event('p1', '2026-11-22T10:00:00.000Z'), event('p2', '2026-11-22T10:00:00.000Z')];
    const second = [event('p1', '2026-11-22T11:00:00.000Z')];
    const t0 = Date.now();
    await Promise.all([exporter.export('events', first), exporter.export('events', second)]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    // One flush took both exports: their rows are in the lake, none staged.
    expect(await eventIds(lake)).toEqual(sorted([...first, ...second].map((x) => x.data.id)));
    expect(await stagedCount(db, 'events')).toBe(0);
    expect(await journal(db, 'lake_flushes')).toEqual(['done']);
    await exporter.shutdown();
    await db.close();
  });

  it('ack: staging (the default) resolves at the staging commit, before any file exists', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir, { ...QUIET, flush: { interval_ms: 3_600_000, linger_ms: 50 } });
    await exporter.export('traces', [span('p1', '2026-11-22T10:00:00.000Z')]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(lakeFiles(lake, 'traces')).toEqual([]);
    expect(await stagedCount(db, 'traces')).toBe(1);
    await exporter.shutdown();
    await db.close();
  });

  it('a flush that fails keeps the export waiting; the retry publishes the rows and resolves it', async () => {
    const dir = tempDir();
    const { db, exporter, lake } = await open(dir, { ...QUIET, ack: 'lake', flush: { interval_ms: 100, linger_ms: 20 } });
    // A file where the signal's directory goes: the flush cannot publish until it is gone.
    mkdirSync(lake, { recursive: true });
    writeFileSync(join(lake, 'events'), 'in the way');
    let resolved = false;
    const one = event('p1', '2026-11-22T10:00:00.000Z');
    const exported = exporter.export('events', [one]).then(() => (resolved = true));
    await vi.waitFor(async () => expect(await journal(db, 'lake_flushes')).toContain('pending'), { timeout: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resolved).toBe(false);
    rmSync(join(lake, 'events'));
    await exported;
    expect(await eventIds(lake)).toEqual([one.data.id]);
    await exporter.shutdown();
    await db.close();
  });
});
