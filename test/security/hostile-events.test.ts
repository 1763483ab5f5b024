// Issue 23 on a real server on loopback: the grouping ReDoS sent as anyone holding a public DSN key
// can (a 214-byte store request) and through POST /v1/events, and bodies nested hundreds of
// thousands deep on every ingest path. The server answers quickly, keeps serving others, and a
// body it cannot use is a 400, never a 500.
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

let svc: TestService;
let publicKey: string;
let ingestId: number;

beforeAll(async () => {
  svc = await startService();
  const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Array<{ ingest_id: number; dsn: string }> }).data;
  ingestId = project.ingest_id;
  publicKey = new URL(project.dsn).username;
});
afterAll(() => svc?.stop());

const hex = () => randomUUID().replaceAll('-', '');
const sentryAuth = () => ({ 'x-sentry-auth': `Sentry sentry_key=${publicKey}, sentry_version=7` });

function sentry(kind: 'store' | 'envelope', body: string): Promise<Response> {
  return fetch(`${svc.baseUrl}/api/${ingestId}/${kind}/`, { method: 'POST', headers: sentryAuth(), body });
}

/** A native frame whose function ends in a run of `&` and a character that makes the old qualifier regex backtrack over all of it. */
function hostileFunction(ampersands: number): string {
  return `f()${'&'.repeat(ampersands)}x`;
}

/** How long the event loop was held at most while `work` ran, and how long `work` took. */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; elapsed: number; maxDelay: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const start = performance.now();
  const result = await work();
  const elapsed = performance.now() - start;
  delay.disable();
  return { result, elapsed, maxDelay: delay.max / 1e6 };
}

/** Generous bounds: the attack took seconds per request; a healthy answer takes milliseconds. */
const PROMPT_MS = 1500;
const LOOP_HELD_MS = 250;

describe('the grouping ReDoS of issue 23', () => {
  it('the 214-byte store request with a public DSN key is answered quickly and another request is served promptly', async () => {
    const body = JSON.stringify({
      event_id: hex(),
      platform: 'native',
      exception: { values: [{ type: 'E', value: 'v', stacktrace: { frames: [{ function: hostileFunction(32) }] } }] },
    });
    expect(body.length).toBeLessThan(300);
    const { result, elapsed, maxDelay } = await measured(async () => {
      const attack = sentry('store', body);
      // Another tenant's request while the attack is in flight.
      const otherStart = performance.now();
      const other = await svc.api('/readyz', { key: null });
      const otherElapsed = performance.now() - otherStart;
      return { attack: await attack, other, otherElapsed };
    });
    expect(result.attack.status).toBe(200);
    expect(result.other.status).toBe(200);
    expect(result.otherElapsed).toBeLessThan(PROMPT_MS);
    expect(elapsed).toBeLessThan(PROMPT_MS);
    expect(maxDelay).toBeLessThan(LOOP_HELD_MS);
  });

  it('the same frames at the longest length validation keeps, through POST /v1/events, cost about what a benign event of that size does', async () => {
    const eventOf = (run: (char: string, length: number) => string) =>
      fullEvent({
        platform: 'native',
        message: run(' ', 8000),
        exception: {
          type: run('&', 1000),
          value: run('@', 8000),
          stacktrace: Array.from({ length: 250 }, (_, i) => ({ function: `f()${run('&', 1000 - i)}`, module: run('<', 900) + i, filename: run('(', 900) + i })),
        },
      });
    const post = (event: Record<string, unknown>) => measured(() => svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event) }));
    // The same sizes in letters first (which also warms the code up), then the runs that backtrack.
    await post(eventOf((_, length) => 'b'.repeat(length)));
    const benign = await post(eventOf((_, length) => 'b'.repeat(length)));
    const hostile = await post(eventOf((char, length) => `${char.repeat(length)}x`));
    expect(benign.result.status).toBe(202);
    expect(hostile.result.status).toBe(202);
    expect(hostile.elapsed).toBeLessThan(PROMPT_MS);
    expect(hostile.maxDelay).toBeLessThan(3 * benign.maxDelay + LOOP_HELD_MS);
    const ready = performance.now();
    expect((await svc.api('/readyz', { key: null })).status).toBe(200);
    expect(performance.now() - ready).toBeLessThan(PROMPT_MS);
  });
});

describe('bodies nested 400,000 deep', () => {
  const DEPTH = 400_000;
  const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

  it('a replay chunk is a 400, not a 500', async () => {
    const res = await svc.api('/v1/replays', {
      method: 'POST',
      body: `{"replay_id":"rpl_${hex()}","segment_id":0,"events":[{"type":3,"timestamp":${Date.now()},"data":${deepArray}}]}`,
    });
    await expectError(res, 400, 'validation_failed');
  });

  it('a replay chunk in its raw form is a 400 too', async () => {
    const res = await svc.api(`/v1/replays?replay_id=rpl_${hex()}&segment_id=0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `[{"type":3,"timestamp":${Date.now()},"data":${deepArray}}]`,
    });
    await expectError(res, 400, 'validation_failed');
  });

  it('an event through POST /v1/events is a 400', async () => {
    const event = JSON.stringify(fullEvent({ extra: 0 })).replace('"extra":0', `"extra":${deepArray}`);
    await expectError(await svc.api('/v1/events', { method: 'POST', body: event }), 400, 'validation_failed');
  });

  it('a span through POST /v1/traces is refused with the path of what nests too deep', async () => {
    const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
    const now = Date.now();
    for (const value of [deepArray, deepObject]) {
      const span = `{"trace_id":"${hex()}","span_id":"${hex().slice(0, 16)}","name":"s","start_time":${now - 10},"end_time":${now},"attributes":{"a":${value}}}`;
      const res = await svc.api('/v1/traces', { method: 'POST', body: `{"spans":[${span}]}` });
      expect(res.status).toBeLessThan(500);
      const body = (await res.json()) as { accepted: number; rejected: number; errors: Array<{ path: string }> };
      expect(body).toMatchObject({ accepted: 0, rejected: 1 });
      expect(body.errors[0].path).toMatch(/^attributes\.a/);
    }
  });

  it('a store body is a 400', async () => {
    const res = await sentry('store', `{"event_id":"${hex()}","extra":{"d":${deepArray}}}`);
    expect(res.status).toBe(400);
  });

  it('an envelope whose header nests deep is a 400; items that nest deep are refused without a 5xx', async () => {
    expect((await sentry('envelope', `${deepArray}\n`)).status).toBe(400);
    for (const [type, payload] of [
      ['event', `{"event_id":"${hex()}","extra":{"d":${deepArray}}}`],
      ['transaction', `{"type":"transaction","contexts":{"trace":{"trace_id":"${hex()}","span_id":"${hex().slice(0, 16)}"}},"tags":${deepArray}}`],
      ['replay_recording', deepArray],
    ]) {
      const res = await sentry('envelope', `{"event_id":"${hex()}"}\n{"type":"${type}"}\n${payload}\n`);
      expect(res.status, type).toBeGreaterThanOrEqual(200);
      expect(res.status, type).toBeLessThan(500);
    }
  });
});
