// The unmodified @sentry/node, from npm, in child processes pointed at a Faultline DSN (issue #16):
// a captured exception with its cause, breadcrumbs, user and tags; a transaction with child spans;
// an uncaught exception; the transport's gzip. Everything is read back through /v1.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.js';

const APP = join(import.meta.dirname, '../fixtures/sentry/node-app.mjs');

let svc: TestService;
let dsn: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents read back are checked field by field
type Json = Record<string, any>;

function runApp(mode: 'capture' | 'uncaught' | 'message'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [APP, mode], { env: { ...process.env, SENTRY_DSN: dsn }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function eventsMatching(text: string): Promise<Json[]> {
  const res = await svc.api(`/v1/events?project_id=default&query=${encodeURIComponent(text)}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: Json[] }).data;
}

beforeAll(async () => {
  svc = await startService();
  const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Json[] }).data;
  // The DSN GET /v1/projects gives, on the port this test's service listens on.
  const url = new URL(project.dsn as string);
  dsn = `http://${url.username}@${new URL(svc.baseUrl).host}${url.pathname}`;
});
afterAll(() => svc?.stop());

describe('@sentry/node', () => {
  let captured: Json;

  beforeAll(async () => {
    const [capture, uncaught] = await Promise.all([runApp('capture'), runApp('uncaught')]);
    expect(capture.code, capture.stderr).toBe(0);
    expect(uncaught.code).toBe(1);
    const { eventId } = JSON.parse(capture.stdout.trim().split('\n').at(-1) ?? '{}') as { eventId: string };
    const res = await svc.api(`/v1/events/${eventId}`);
    expect(res.status, await res.clone().text()).toBe(200);
    captured = (await res.json()) as Json;
  }, 30_000);

  it('captureException: the raised error, its cause, mechanism, frames, breadcrumbs, user, tags; gzip transport', () => {
    expect(captured.release).toBe('node-app@1.0.0');
    expect(captured.environment).toBe('staging');
    expect(captured.platform).toBe('node');
    expect(captured.exception).toMatchObject({ type: 'Error', value: 'checkout failed', mechanism: { handled: true } });
    expect(captured.exception.cause).toMatchObject({ type: 'TypeError', value: 'no price for mug' });
    const frames = captured.exception.cause.stacktrace as Json[];
    expect(frames.at(-1)).toMatchObject({ function: 'priceOf', in_app: true });
    expect(frames.at(-1)?.filename ?? frames.at(-1)?.abs_path).toMatch(/node-app\.mjs$/);
    expect(captured.breadcrumbs).toEqual(expect.arrayContaining([expect.objectContaining({ category: 'cart', message: 'added mug' })]));
    expect(captured.user).toMatchObject({ id: 'u-7', email: 'ada@example.com' });
    expect(captured.tags).toMatchObject({ feature: 'checkout' });
    // Over 32 KiB: the SDK's transport sent it gzipped.
    expect(String(captured.contexts.extra.basket).length).toBeGreaterThan(1000);
    expect(captured.issue_id).toEqual(expect.any(String));
  });

  it('a transaction with child spans is a trace, linked to the error raised inside it', async () => {
    expect(captured.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const res = await svc.api(`/v1/traces/${captured.trace_id}`);
    expect(res.status).toBe(200);
    const trace = (await res.json()) as Json;
    const names = (trace.spans as Json[]).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['checkout', 'load cart', 'total']));
    const root = (trace.spans as Json[]).find((s) => s.name === 'checkout') as Json;
    expect(root.parent_span_id).toBe('');
    expect(root.attributes['sentry.op']).toBe('task');
    const child = (trace.spans as Json[]).find((s) => s.name === 'load cart') as Json;
    expect(child.parent_span_id).toBe(root.span_id);
    expect(child.attributes['sentry.op']).toBe('db.query');
    expect(BigInt(child.end_time_unix_nano as string) - BigInt(child.start_time_unix_nano as string)).toBeGreaterThan(1_000_000n);
    expect(trace.error_event_ids).toContain(captured.id);
  });

  it('an uncaught exception is reported, unhandled, and grouped into an issue', async () => {
    const [event] = await eventsMatching('uncaught in a timer');
    expect(event).toMatchObject({ level: 'fatal', exception: { type: 'RangeError', mechanism: { handled: false } } });
    expect(event.issue_id).toEqual(expect.any(String));
  });

  it('captureMessage: the event and its issue are titled by the message, and its frames from node_modules are not in-app', async () => {
    const run = await runApp('message');
    expect(run.code, run.stderr).toBe(0);
    const { eventId } = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { eventId: string };
    const res = await svc.api(`/v1/events/${eventId}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const event = (await res.json()) as Json;
    expect(event.message).toBe('payment provider is slow');
    expect(event.level).toBe('warning');
    expect(event.title).toBe('payment provider is slow');
    expect(event.exception.mechanism).toMatchObject({ synthetic: true });
    const frames = event.exception.stacktrace as Json[];
    expect(frames.some((f) => f.in_app === true)).toBe(true);
    for (const frame of frames) if (/node_modules|^node:/.test(String(frame.filename))) expect(frame.in_app, frame.filename).toBe(false);
    const issue = (await (await svc.api(`/v1/issues/${event.issue_id}`)).json()) as Json;
    expect(issue.title).toBe('payment provider is slow');
  });
});
