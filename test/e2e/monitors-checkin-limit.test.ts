// A monitor's check-ins a minute are bounded on every route that takes them (Sentry's HTTP
// check-in route and envelopes carry the public DSN key): past the bound the HTTP routes answer
// 429 rate_limited with Retry-After and an envelope item is skipped, and nothing past it is stored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { expectError } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are checked field by field
type Json = Record<string, any>;

const yaml = readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8').replace('  monitors: {}', '  monitors:\n    checkin_rate_per_minute: 3');

let svc: TestService;
let ingestId: string;
let publicKey: string;

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const res = await svc.api(path, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function createMonitor(slug: string): Promise<void> {
  const created = await call('/v1/monitors', {
    method: 'POST',
    body: JSON.stringify({ project_id: 'default', slug, type: 'cron', schedule: { type: 'crontab', value: '@hourly' } }),
  });
  expect(created.status).toBe(201);
}

const storedCheckins = async (slug: string) => ((await call(`/v1/monitors/${slug}/checkins?project_id=default`)).body.data as Json[]).length;

beforeAll(async () => {
  svc = await startService({ yaml });
  const project = (await call('/v1/projects')).body.data[0] as Json;
  const dsn = new URL(project.dsn as string);
  ingestId = dsn.pathname.slice(1);
  publicKey = dsn.username;
});
afterAll(() => svc?.stop());

describe('check-ins a minute per monitor (monitors.checkin_rate_per_minute)', () => {
  it("refuses Sentry's HTTP check-ins past the bound with 429 and Retry-After, and stores none of them", async () => {
    await createMonitor('busy-job');
    const url = `${svc.baseUrl}/api/${ingestId}/cron/busy-job/${publicKey}/?status=ok`;
    for (let i = 0; i < 3; i++) expect((await fetch(url)).status).toBe(202);
    const refused = await fetch(url);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await expectError(refused, 429, 'rate_limited');
    expect(body.error.message).toContain('checkin_rate_per_minute');
    // The /v1 route counts against the same monitor's bound.
    await expectError(await svc.api('/v1/monitors/busy-job/checkins?project_id=default', { method: 'POST', body: '{"status":"ok"}' }), 429, 'rate_limited');
    expect(await storedCheckins('busy-job')).toBe(3);
    // Another monitor has a bound of its own.
    await createMonitor('quiet-job');
    expect((await fetch(`${svc.baseUrl}/api/${ingestId}/cron/quiet-job/${publicKey}/?status=ok`)).status).toBe(202);
  });

  it('skips the check_in items of an envelope past the bound, with the reason', async () => {
    const item = (n: number) => {
      const payload = JSON.stringify({
        check_in_id: `${n}`.padStart(32, '0'),
        monitor_slug: 'envelope-job',
        status: 'ok',
        monitor_config: { schedule: { type: 'crontab', value: '@daily' } },
      });
      return `${JSON.stringify({ type: 'check_in', length: Buffer.byteLength(payload) })}\n${payload}\n`;
    };
    const body = `${JSON.stringify({})}\n${[1, 2, 3, 4, 5].map(item).join('')}`;
    const res = await fetch(`${svc.baseUrl}/api/${ingestId}/envelope/?sentry_key=${publicKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-sentry-envelope' },
      body,
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { skipped?: Array<{ index: number; type: string; reason: string }> };
    expect(answer.skipped?.map((s) => [s.index, s.type])).toEqual([
      [3, 'check_in'],
      [4, 'check_in'],
    ]);
    expect(answer.skipped?.[0].reason).toMatch(/^rate_limited: .*checkin_rate_per_minute/);
    expect(await storedCheckins('envelope-job')).toBe(3);
  });
});
