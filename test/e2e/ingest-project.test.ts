// End to end: which project POST /v1/events and POST /v1/traces store into when the body names
// one (`project_id`): the body is honoured, the query parameter and header still win, and a body
// naming another project than they do is 400 — an item never lands silently elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
  await catalogOf(svc.service.host).createProject({ id: 'shop', name: 'Shop' });
  await catalogOf(svc.service.host).createProject({ id: 'blog', name: 'Blog' });
});

afterAll(async () => {
  await svc?.stop();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await svc.api(path, { method: 'POST', body: JSON.stringify(body), headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function storedEvent(id: string): Promise<Record<string, unknown>> {
  const res = await svc.api(`/v1/events/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('POST /v1/events: project_id in the body', () => {
  it('stores the event in the project the body names, with no unknown_field note', async () => {
    const sent = await post('/v1/events', fullEvent({ project_id: 'shop' }));
    expect(sent.status).toBe(202);
    const event = await storedEvent(sent.body.id as string);
    expect(event.project_id).toBe('shop');
    expect(event.processing_errors).toEqual([]);
  });

  it('the same project in the body and the query parameter or header is fine', async () => {
    const viaQuery = await post('/v1/events?project_id=blog', fullEvent({ project_id: 'blog' }));
    expect(viaQuery.status).toBe(202);
    expect((await storedEvent(viaQuery.body.id as string)).project_id).toBe('blog');
    const viaHeader = await post('/v1/events', fullEvent({ project_id: 'shop' }), { 'x-faultline-project': 'shop' });
    expect(viaHeader.status).toBe(202);
    expect((await storedEvent(viaHeader.body.id as string)).project_id).toBe('shop');
  });

  it('a body naming another project than the query parameter or header is 400, and nothing is stored', async () => {
    for (const [path, headers] of [
      ['/v1/events?project_id=blog', {}],
      ['/v1/events', { 'x-faultline-project': 'blog' }],
    ] as const) {
      const id = crypto.randomUUID();
      const sent = await post(path, fullEvent({ id, project_id: 'shop' }), headers);
      expect(sent.status).toBe(400);
      expect(sent.body).toMatchObject({ error: { code: 'invalid_parameter', details: [{ path: 'project_id' }] } });
      expect((await svc.api(`/v1/events/${id}`)).status).toBe(404);
    }
  });

  it('a body project_id that is not a non-empty string is 400; an unknown project 404', async () => {
    expect((await post('/v1/events', fullEvent({ project_id: 7 }))).status).toBe(400);
    expect((await post('/v1/events', fullEvent({ project_id: '' }))).status).toBe(400);
    expect((await post('/v1/events', fullEvent({ project_id: 'nope' }))).status).toBe(404);
  });

  it('a project key cannot name another project in the body (403)', async () => {
    const { secret } = await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'blog', name: 'blog' });
    const res = await svc.api('/v1/events', { method: 'POST', key: secret, body: JSON.stringify(fullEvent({ project_id: 'shop' })) });
    expect(res.status).toBe(403);
  });
});

describe('POST /v1/traces: project_id in the body', () => {
  const span = (id: string) => ({ trace_id: 'a1'.repeat(16), span_id: id, name: 'GET /', start_time: 1763805600000, end_time: 1763805600250 });

  it('stores the spans in the project the body names; a mismatch with the query is 400', async () => {
    const sent = await post('/v1/traces', { project_id: 'shop', spans: [span('00f067aa0ba902b7')] });
    expect(sent.status).toBe(202);
    expect(sent.body.accepted).toBe(1);
    const trace = await svc.api(`/v1/traces/${'a1'.repeat(16)}?project_id=shop`);
    expect(trace.status).toBe(200);
    expect(((await trace.json()) as { spans: unknown[] }).spans).toHaveLength(1);
    expect((await svc.api(`/v1/traces/${'a1'.repeat(16)}?project_id=default`)).status).toBe(404);
    const mismatch = await post('/v1/traces?project_id=blog', { project_id: 'shop', spans: [span('00f067aa0ba902b8')] });
    expect(mismatch.status).toBe(400);
  });
});
