// Issue #14: POST /v1/replays in its three body forms, limits and validation, idempotent
// re-posts, the replay's merged metadata and error bookmarks, segments read back (gzip or not),
// the list with its filters and cursor, isolation between projects and datasets, and retention.
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckdbExporter } from '../../exporters/duckdb/exporter.js';
import { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess } from '../support/process.js';
import { fullEvent, startService, tempDir, type TestService } from '../support/service.js';
import { postChunk, rrwebEvents } from '../support/replays.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;
let shopKey: string;
const T0 = Date.now() - 60_000;
const newId = () => `rpl_${randomUUID().replaceAll('-', '')}`;

beforeAll(async () => {
  svc = await startService();
  await catalogOf(svc.service.host).createProject({ id: 'shop', name: 'Shop' });
  shopKey = (await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'shop' })).secret;
});
afterAll(() => svc.stop());

async function getReplay(id: string, key?: string): Promise<Response> {
  return svc.api(`/v1/replays/${id}`, { key });
}

describe('POST /v1/replays', () => {
  it.each(['events', 'data-gzip', 'data-zlib', 'raw'] as const)('stores a chunk sent as %s and reads it back', async (form) => {
    const id = newId();
    const events = rrwebEvents(T0, 6);
    const res = await postChunk(svc, form, { replay_id: id, segment_id: 0, environment: 'prod' }, events);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ replay_id: id, segment_id: 0, status: 'stored' });
    const replay = (await (await getReplay(id)).json()) as Record<string, unknown>;
    expect(replay).toMatchObject({
      id,
      project_id: 'default',
      segment_count: 1,
      environment: 'prod',
      urls: ['https://shop.example/checkout'],
      duration_ms: 500,
    });
    const plain = await fetch(`${svc.baseUrl}/v1/replays/${id}/segments/0`, {
      headers: { authorization: `Bearer ${svc.liveKey}`, 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.json()).toEqual(events);
  });

  it('sends the stored gzip as it is to a client that accepts gzip', async () => {
    const id = newId();
    const events = rrwebEvents(T0, 4);
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0 }, events)).status).toBe(202);
    const res = await fetch(`${svc.baseUrl}/v1/replays/${id}/segments/0`, { headers: { authorization: `Bearer ${svc.liveKey}`, 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(await res.json()).toEqual(events); // fetch inflates it
  });

  it('is idempotent per (replay_id, segment_id): the first copy stays', async () => {
    const id = newId();
    const first = rrwebEvents(T0, 3);
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0 }, first)).status).toBe(202);
    const again = await postChunk(svc, 'data-gzip', { replay_id: id, segment_id: 0 }, rrwebEvents(T0, 9));
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ replay_id: id, segment_id: 0, status: 'stored' });
    const replay = (await (await getReplay(id)).json()) as { segment_count: number; event_count: number };
    expect(replay).toMatchObject({ segment_count: 1, event_count: 3 });
    expect(await (await svc.api(`/v1/replays/${id}/segments/0`)).json()).toEqual(first);
  });

  it('merges segments posted out of order and their metadata', async () => {
    const id = newId();
    const later = rrwebEvents(T0 + 10_000, 3, { fullSnapshot: false });
    expect(
      (
        await postChunk(
          svc,
          'events',
          { replay_id: id, segment_id: 2, urls: ['https://shop.example/done'], trace_ids: ['ab'.repeat(16)], release: 'shop@2' },
          later,
        )
      ).status,
    ).toBe(202);
    expect((await postChunk(svc, 'raw', { replay_id: id, segment_id: 1, 'user.id': 'u-1' }, rrwebEvents(T0 + 5_000, 2, { fullSnapshot: false }))).status).toBe(
      202,
    );
    expect(
      (await postChunk(svc, 'events', { replay_id: id, segment_id: 0, environment: 'staging', user: { id: 'u-1', email: 'a@b.c' } }, rrwebEvents(T0, 4)))
        .status,
    ).toBe(202);
    const replay = (await (await getReplay(id)).json()) as Record<string, unknown> & { streams: Array<{ segment_id: number; url: string }> };
    expect(replay).toMatchObject({
      segment_count: 3,
      started_at: new Date(T0).toISOString(),
      finished_at: new Date(T0 + 10_200).toISOString(),
      duration_ms: 10_200,
      environment: 'staging',
      release: 'shop@2',
      user: { id: 'u-1', email: 'a@b.c' },
      urls: ['https://shop.example/checkout', 'https://shop.example/done'],
      trace_ids: ['ab'.repeat(16)],
    });
    expect(replay.streams.map((s) => s.segment_id)).toEqual([0, 1, 2]);
    expect(replay.streams[1].url).toBe(`http://faultline.test/v1/replays/${id}/segments/1`);
  });

  it('keeps a first segment without a full snapshot, with a note', async () => {
    const id = newId();
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0 }, rrwebEvents(T0, 2, { fullSnapshot: false }))).status).toBe(202);
    const replay = (await (await getReplay(id)).json()) as { processing_errors: Array<{ type: string; segment_id: number }> };
    expect(replay.processing_errors).toEqual([expect.objectContaining({ type: 'no_full_snapshot', segment_id: 0 })]);
  });

  it('refuses bad ids, segment ids and events with field-level details', async () => {
    const cases: Array<[Record<string, unknown>, unknown, string]> = [
      [{ replay_id: 'abc', segment_id: 0 }, rrwebEvents(T0), 'replay_id'],
      [{ segment_id: 0 }, rrwebEvents(T0), 'replay_id'],
      [{ replay_id: newId(), segment_id: -1 }, rrwebEvents(T0), 'segment_id'],
      [{ replay_id: newId(), segment_id: 1.5 }, rrwebEvents(T0), 'segment_id'],
      [{ replay_id: newId(), segment_id: '0' }, rrwebEvents(T0), 'segment_id'],
      [{ replay_id: newId(), segment_id: 0 }, [{ type: 9, data: {}, timestamp: T0 }], 'events[0].type'],
      [{ replay_id: newId(), segment_id: 0 }, [{ type: 3, timestamp: T0 }], 'events[0].data'],
      [{ replay_id: newId(), segment_id: 0 }, [{ type: 3, data: {}, timestamp: 'now' }], 'events[0].timestamp'],
      [{ replay_id: newId(), segment_id: 0 }, [], 'events'],
      [{ replay_id: newId(), segment_id: 0 }, { not: 'a list' }, 'events'],
    ];
    for (const [fields, events, path] of cases) {
      const res = await postChunk(svc, 'events', fields, events);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const body = (await res.json()) as { error: { code: string; details: Array<{ path: string }> } };
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.details.map((d) => d.path)).toContain(path);
    }
    const raw = await postChunk(svc, 'raw', { replay_id: newId(), segment_id: 'x' }, rrwebEvents(T0));
    expect(raw.status).toBe(400);
    const notBase64 = await svc.api('/v1/replays', { method: 'POST', body: JSON.stringify({ replay_id: newId(), segment_id: 0, data: 'not base64!' }) });
    expect(notBase64.status).toBe(400);
    const notGzip = await svc.api('/v1/replays', {
      method: 'POST',
      body: JSON.stringify({ replay_id: newId(), segment_id: 0, data: Buffer.from('[]').toString('base64') }),
    });
    expect(((await notGzip.json()) as { error: { details: Array<{ path: string }> } }).error.details[0].path).toBe('data');
    const badJson = await svc.api('/v1/replays', { method: 'POST', body: '{"replay_id":' });
    expect(badJson.status).toBe(400);
  });

  it('answers 413 past 10 MiB on the wire and after inflation, and 415 for other types', async () => {
    const big = 'x'.repeat(11 * 1024 * 1024);
    const wire = await svc.api('/v1/replays', { method: 'POST', body: JSON.stringify({ replay_id: newId(), segment_id: 0, events: [big] }) });
    expect(wire.status).toBe(413);
    expect(((await wire.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    // Small on the wire, more than 10 MiB inflated: in `data` and as a raw gzip body.
    const bomb = gzipSync(JSON.stringify([{ type: 3, data: { text: big }, timestamp: T0 }]));
    expect(bomb.length).toBeLessThan(100_000);
    const data = await svc.api('/v1/replays', { method: 'POST', body: JSON.stringify({ replay_id: newId(), segment_id: 0, data: bomb.toString('base64') }) });
    expect(data.status).toBe(413);
    const raw = await svc.api(`/v1/replays?replay_id=${newId()}&segment_id=0`, { method: 'POST', headers: { 'content-encoding': 'gzip' }, body: bomb });
    expect(raw.status).toBe(413);
    const text = await svc.api('/v1/replays', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '[]' });
    expect(text.status).toBe(415);
    const encoding = await svc.api(`/v1/replays?replay_id=${newId()}&segment_id=0`, { method: 'POST', headers: { 'content-encoding': 'br' }, body: 'x' });
    expect(encoding.status).toBe(415);
  });
});

describe('reads', () => {
  it('bookmarks the errors that carry the replay id at their offset', async () => {
    const id = newId();
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0 }, rrwebEvents(T0, 5))).status).toBe(202);
    const eventId = randomUUID();
    const event = fullEvent({ id: eventId, timestamp: new Date(T0 + 2_500).toISOString(), replay_id: id });
    expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event) })).status).toBe(202);
    const replay = (await (await getReplay(id)).json()) as { error_bookmarks: Array<Record<string, unknown>> };
    expect(replay.error_bookmarks).toEqual([
      expect.objectContaining({
        event_id: eventId,
        offset_ms: 2_500,
        timestamp: new Date(T0 + 2_500).toISOString(),
        link: `http://faultline.test/v1/events/${eventId}`,
      }),
    ]);
    expect(typeof replay.error_bookmarks[0].title).toBe('string');
  });

  it('lists replays newest first with filters and a cursor', async () => {
    const base = Date.now() - 30_000;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = newId();
      ids.push(id);
      const fields = {
        replay_id: id,
        segment_id: 0,
        environment: i % 2 ? 'listing-odd' : 'listing-even',
        release: `list@${i}`,
        user: { id: `list-user-${i}` },
        ...(i === 3 && { error_ids: [randomUUID()] }),
      };
      expect((await postChunk(svc, 'events', fields, rrwebEvents(base + i * 1000, 3, { href: `https://list.example/page-${i}` }))).status).toBe(202);
    }
    type Page = { data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null };
    const list = async (query: string) => {
      const res = await svc.api(`/v1/replays?project_id=default&${query}`);
      const body = (await res.json()) as Page;
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };
    expect((await list('environment=listing-odd')).data.map((r) => r.id)).toEqual([ids[3], ids[1]]);
    expect((await list('release=list@2')).data.map((r) => r.id)).toEqual([ids[2]]);
    expect((await list('user.id=list-user-0')).data.map((r) => r.id)).toEqual([ids[0]]);
    expect((await list('url=list.example/page-1')).data.map((r) => r.id)).toEqual([ids[1]]);
    expect((await list('url=list.example&has_errors=true')).data.map((r) => r.id)).toEqual([ids[3]]);
    expect((await list('url=list.example&has_errors=false')).data.map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    const first = await list('url=list.example&limit=3');
    expect(first.data.map((r) => r.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = await list(`url=list.example&limit=3&cursor=${first.next_cursor}`);
    expect(second).toMatchObject({ data: [{ id: ids[0] }], has_more: false, next_cursor: null });
    expect((await svc.api('/v1/replays?project_id=default&cursor=nope')).status).toBe(400);
    expect((await svc.api('/v1/replays?has_errors=maybe')).status).toBe(400);
  });

  it("never returns another project's or the other dataset's replays", async () => {
    const id = newId();
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0, environment: 'isolated' }, rrwebEvents(T0), shopKey)).status).toBe(202);
    expect((await svc.api(`/v1/replays/${id}?project_id=shop`, { key: shopKey })).status).toBe(200);
    expect((await svc.api(`/v1/replays/${id}`, { key: shopKey })).status).toBe(200);
    // The default project's key, and the sandbox key, see nothing of it.
    const other = catalogOf(svc.service.host);
    const defaultKey = (await other.createKey({ dataset: 'live', projectId: 'default' })).secret;
    expect((await svc.api(`/v1/replays/${id}`, { key: defaultKey })).status).toBe(404);
    expect((await svc.api(`/v1/replays/${id}/segments/0`, { key: defaultKey })).status).toBe(404);
    expect((await svc.api(`/v1/replays/${id}`, { key: svc.testKey })).status).toBe(404);
    expect((await svc.api(`/v1/replays/${id}/segments/0`, { key: svc.testKey })).status).toBe(404);
    const sandbox = (await (await svc.api('/v1/replays?project_id=shop&environment=isolated', { key: svc.testKey })).json()) as { data: unknown[] };
    expect(sandbox.data).toEqual([]);
    // The same replay id in the sandbox is another replay.
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0 }, rrwebEvents(T0, 2), svc.testKey)).status).toBe(202);
    const own = (await (await svc.api(`/v1/replays/${id}`, { key: svc.testKey })).json()) as { event_count: number; project_id: string };
    expect(own).toMatchObject({ event_count: 2, project_id: 'default' });
    expect((await svc.api('/v1/replays/rpl_unknown')).status).toBe(404);
    expect((await svc.api(`/v1/replays/${id}/segments/7`, { key: shopKey })).status).toBe(404);
  });
});

describe('GET /v1/projects telemetry', () => {
  it('counts the replays a project received in the last 24 hours', async () => {
    const before = (await (await svc.api('/v1/projects')).json()) as { data: Array<{ id: string; telemetry: { replays: { count_24h: number } } }> };
    const count = before.data.find((p) => p.id === 'shop')?.telemetry.replays.count_24h ?? 0;
    const id = newId();
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 0 }, rrwebEvents(T0), shopKey)).status).toBe(202);
    expect((await postChunk(svc, 'events', { replay_id: id, segment_id: 1 }, rrwebEvents(T0 + 1000, 2, { fullSnapshot: false }), shopKey)).status).toBe(202);
    const after = (await (await svc.api('/v1/projects')).json()) as {
      data: Array<{ id: string; telemetry: { status: string; replays: { count_24h: number; last_received_at: string | null } } }>;
    };
    const shop = after.data.find((p) => p.id === 'shop');
    expect(shop?.telemetry.replays.count_24h).toBe(count + 1);
    expect(shop?.telemetry.status).toBe('receiving');
    expect(shop?.telemetry.replays.last_received_at).not.toBeNull();
  });
});

describe('crash safety', () => {
  it('keeps every acknowledged segment through kill -9 and a restart', async () => {
    const dir = tempDir('faultline-replays-kill-');
    const proc = await startProcess(dir);
    const key = proc.liveKey as string;
    const id = newId();
    const post = (segment: number) =>
      fetch(`${proc.baseUrl}/v1/replays`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ replay_id: id, segment_id: segment, events: rrwebEvents(T0 + segment * 1000, 4, { fullSnapshot: segment === 0 }) }),
      });
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i).then((r) => r.status)));
    expect(statuses.every((s) => s === 202)).toBe(true);
    proc.child.kill('SIGKILL');
    expect(await proc.exited).toBe('SIGKILL');
    const again = await startProcess(dir);
    try {
      const replay = (await (await fetch(`${again.baseUrl}/v1/replays/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        segment_count: number;
      };
      expect(replay.segment_count).toBe(20);
      const last = await fetch(`${again.baseUrl}/v1/replays/${id}/segments/19`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await last.json()) as unknown[]).length).toBe(4);
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('retention', () => {
  it('removes whole replays whose last segment is past retention: rows, documents and blobs', async () => {
    const day = 24 * 3600 * 1000;
    const old = newId();
    const kept = newId();
    const oldEvents = rrwebEvents(Date.now() - 20 * day, 3, { text: 'old-only' });
    const sha = SegmentBlobs.digest(JSON.stringify(oldEvents));
    const blob = join(svc.dataDir, 'replays', sha.slice(0, 2), `${sha}.json.gz`);
    expect((await postChunk(svc, 'events', { replay_id: old, segment_id: 0 }, oldEvents)).status).toBe(202);
    expect(existsSync(blob)).toBe(true);
    expect((await postChunk(svc, 'events', { replay_id: kept, segment_id: 0 }, rrwebEvents(Date.now() - 20 * day, 3, { text: 'kept' }))).status).toBe(202);
    expect((await postChunk(svc, 'events', { replay_id: kept, segment_id: 1 }, rrwebEvents(Date.now() - 1000, 3, { fullSnapshot: false }))).status).toBe(202);
    const result = await svc.service.runRetention({ replays_days: 10 });
    expect(result.deletedRows['duckdb:replay_segments']).toBe(1);
    expect((await getReplay(old)).status).toBe(404);
    expect((await svc.api(`/v1/replays/${old}/segments/0`)).status).toBe(404);
    expect(existsSync(blob)).toBe(false);
    expect((svc.service.exporter('duckdb') as DuckdbExporter).documents().get('replays', ['live', 'default', old, 0])).toBeUndefined();
    expect(((await (await getReplay(kept)).json()) as { segment_count: number }).segment_count).toBe(2);
    expect((await svc.api(`/v1/replays/${kept}/segments/0`)).status).toBe(200);
  });
});
