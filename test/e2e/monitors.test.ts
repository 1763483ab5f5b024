// Cron and uptime monitors on a real service: the /v1/monitors API, check-ins from the unmodified
// @sentry/node and Sentry's HTTP route, a one-minute crontab really missed, and an uptime monitor
// against a loopback server going down and up with one webhook notification each way.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationProblem } from '../../receivers/monitors/destination.js';
import { DestinationGuard } from '../../src/net/destinations.js';
import { packageRoot } from '../../src/paths.js';
import { createRule } from '../support/alerts.js';
import { browserBinary } from '../support/browsers.js';
import { expectError } from '../support/http.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are checked field by field
type Json = Record<string, any>;

const yaml = readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8')
  .replace('  monitors: {}', '  monitors:\n    detection_interval_ms: 200\n    min_uptime_interval_seconds: 1\n    allow_private_destinations: true')
  .replace(
    '  alerting: {}',
    '  alerting:\n    allow_private_destinations: true\n    delivery: { initial_backoff_ms: 100, max_backoff_ms: 400, timeout_ms: 2000, poll_interval_ms: 100 }',
  );

let svc: TestService;

async function call(path: string, init: RequestInit & { key?: string | null } = {}): Promise<{ status: number; body: Json }> {
  const res = await svc.api(path, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  svc = await startService({ yaml });
});
afterAll(() => svc?.stop());

describe('/v1/monitors', () => {
  it('creates, lists, reads, pauses and deletes a cron monitor, and takes check-ins that open and close runs', async () => {
    const created = await call('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({
        project_id: 'default',
        slug: 'billing-run',
        type: 'cron',
        schedule: { type: 'crontab', value: '*/5 * * * *' },
        max_runtime_minutes: 15,
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      slug: 'billing-run',
      type: 'cron',
      status: 'new',
      checkin_margin_minutes: 1,
      max_runtime_minutes: 15,
      timezone: 'UTC',
    });
    expect(Date.parse(created.body.next_expected_at) % 300_000).toBe(0);

    const opened = await call('/v1/monitors/billing-run/checkins?project_id=default', { method: 'POST', body: JSON.stringify({ status: 'in_progress' }) });
    expect(opened.status).toBe(202);
    const closed = await call('/v1/monitors/billing-run/checkins?project_id=default', {
      method: 'POST',
      body: JSON.stringify({ status: 'ok', check_in_id: opened.body.check_in_id, duration_ms: 420 }),
    });
    expect(closed.body.check_in_id).toBe(opened.body.check_in_id);
    const checkins = await call('/v1/monitors/billing-run/checkins?project_id=default');
    expect(checkins.body.data).toMatchObject([{ check_in_id: opened.body.check_in_id, status: 'ok', duration_ms: 420 }]);
    expect((await call('/v1/monitors/billing-run?project_id=default')).body).toMatchObject({ status: 'ok', last_checkin_at: expect.any(String) });

    const listed = await call('/v1/monitors?project_id=default&type=cron');
    expect(listed.body.data.map((m: Json) => m.slug)).toContain('billing-run');

    const paused = await call('/v1/monitors/billing-run?project_id=default', { method: 'PATCH', body: JSON.stringify({ paused: true }) });
    expect(paused.body).toMatchObject({ status: 'paused', next_expected_at: null });
    expect((await call('/v1/monitors?project_id=default&status=paused')).body.data.map((m: Json) => m.slug)).toEqual(['billing-run']);

    expect((await call('/v1/monitors/billing-run?project_id=default', { method: 'DELETE' })).status).toBe(204);
    await expectError(await svc.api('/v1/monitors/billing-run?project_id=default'), 404, 'not_found');
  });

  it('answers bad monitors and check-ins with the field that is wrong', async () => {
    const post = (body: Json) => svc.api('/v1/monitors', { method: 'POST', body: JSON.stringify({ project_id: 'default', ...body }) });
    let error = await expectError(await post({ slug: 'x', type: 'cron', schedule: { type: 'crontab', value: '61 * * * *' } }), 400, 'validation_failed');
    expect(error.error.details[0]).toMatchObject({ path: 'schedule.value' });
    error = await expectError(
      await post({ slug: 'x', type: 'cron', schedule: { type: 'crontab', value: '@daily' }, timezone: 'Mars/Base' }),
      400,
      'validation_failed',
    );
    expect(error.error.details[0]).toMatchObject({ path: 'timezone' });
    error = await expectError(await post({ slug: 'Bad Slug', type: 'cron', schedule: { type: 'interval', value: 0, unit: 'week' } }), 400, 'validation_failed');
    expect(error.error.details.map((d: Json) => d.path).sort()).toEqual(['schedule.unit', 'schedule.value', 'slug']);
    error = await expectError(await post({ slug: 'site', type: 'uptime', url: 'ftp://example.com/' }), 400, 'validation_failed');
    expect(error.error.details[0]).toMatchObject({ path: 'url' });
    await expectError(
      await svc.api('/v1/monitors', { method: 'POST', body: JSON.stringify({ slug: 'y', type: 'cron', schedule: { type: 'crontab', value: '@daily' } }) }),
      400,
      'invalid_parameter',
    );

    const body = JSON.stringify({ project_id: 'default', slug: 'twice', type: 'cron', schedule: { type: 'crontab', value: '@daily' } });
    expect((await svc.api('/v1/monitors', { method: 'POST', body })).status).toBe(201);
    await expectError(await svc.api('/v1/monitors', { method: 'POST', body }), 409, 'conflict');
    await expectError(
      await svc.api('/v1/monitors/twice/checkins?project_id=default', { method: 'POST', body: JSON.stringify({ status: 'done' }) }),
      400,
      'validation_failed',
    );
    await expectError(
      await svc.api('/v1/monitors/twice?project_id=default', { method: 'PATCH', body: JSON.stringify({ url: 'https://a.example' }) }),
      400,
      'validation_failed',
    );
    await expectError(await svc.api('/v1/monitors/twice?project_id=default', { key: svc.testKey }), 404, 'not_found'); // the sandbox has its own monitors
    await expectError(await svc.api('/v1/monitors?project_id=default', { key: null }), 401, 'unauthorized');
  });

  it('refuses uptime targets on private, loopback, link-local and metadata addresses unless allowed', async () => {
    // The test's own resolver: names never reach a name server.
    const names: Record<string, string[]> = { 'intranet.example': ['10.0.0.5'], 'shop.example': ['93.184.215.14'] };
    const resolve = async (host: string) => names[host] ?? Promise.reject(new Error(`${host} does not resolve`));
    const guard = new DestinationGuard({ allowPrivate: false, resolve });
    const refused = [
      'http://127.0.0.1:8080/',
      'http://localhost/',
      'http://10.1.2.3/',
      'http://[::1]/',
      'http://169.254.169.254/latest',
      'http://192.168.0.10/',
      'http://intranet.example/',
    ];
    for (const url of refused) expect(await destinationProblem(new URL(url), guard), url).toMatch(/monitors.allow_private_destinations/);
    expect(await destinationProblem(new URL('https://shop.example/health'), guard)).toBeUndefined();
    expect(await destinationProblem(new URL('http://127.0.0.1:8080/'), new DestinationGuard({ allowPrivate: true, resolve }))).toBeUndefined();
  });
});

describe('Sentry SDK check-ins', () => {
  let dsn: URL;
  beforeAll(async () => {
    const project = (await call('/v1/projects')).body.data[0] as Json;
    const url = new URL(project.dsn as string);
    dsn = new URL(`http://${url.username}@${new URL(svc.baseUrl).host}${url.pathname}`);
  });

  it('takes withMonitor and captureCheckIn from @sentry/node, creating the monitors from monitor_config', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(packageRoot, 'test/fixtures/sentry/cron-app.mjs')], {
        env: { ...process.env, SENTRY_DSN: dsn.href },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code, run.stderr).toBe(0);
    const ids = JSON.parse(run.stdout) as { first: string; second: string };

    const nightly = await until('the withMonitor monitor', async () => {
      const res = await call('/v1/monitors/nightly-report?project_id=default');
      return res.status === 200 && res.body.status === 'ok' ? res.body : undefined;
    });
    expect(nightly).toMatchObject({
      type: 'cron',
      schedule: { type: 'crontab', value: '0 3 * * *' },
      checkin_margin_minutes: 5,
      max_runtime_minutes: 20,
      timezone: 'Europe/Berlin',
    });
    const nightlyRuns = (await call('/v1/monitors/nightly-report/checkins?project_id=default')).body.data as Json[];
    expect(nightlyRuns).toHaveLength(1);
    expect(nightlyRuns[0]).toMatchObject({ status: 'ok', environment: 'production' });

    const drain = await until('the captureCheckIn monitor', async () => {
      const res = await call('/v1/monitors/queue-drain?project_id=default');
      return res.status === 200 && res.body.status === 'error' ? res.body : undefined;
    });
    expect(drain).toMatchObject({ schedule: { type: 'interval', value: 15, unit: 'minute' }, checkin_margin_minutes: 2, name: 'Queue.Drain' });
    const runs = (await call('/v1/monitors/queue-drain/checkins?project_id=default')).body.data as Json[];
    expect(runs.map((r) => [r.check_in_id, r.status])).toEqual(
      expect.arrayContaining([
        [ids.first.replace(/-/g, ''), 'ok'],
        [ids.second.replace(/-/g, ''), 'error'],
      ]),
    );
    expect(runs.find((r) => r.status === 'error')!.duration_ms).toBe(1500);

    // The error run is an event of the monitor's issue.
    const issue = (await call(`/v1/issues/${drain.issue_id}`)).body;
    expect(issue).toMatchObject({ title: 'Monitor failure: queue-drain', status: 'unresolved' });
  });

  it("takes Sentry's HTTP check-in route with the project's DSN key", async () => {
    await call('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({ project_id: 'default', slug: 'curl-job', type: 'cron', schedule: { type: 'crontab', value: '@hourly' } }),
    });
    const ingestId = dsn.pathname.slice(1);
    const res = await fetch(`${svc.baseUrl}/api/${ingestId}/cron/curl-job/${dsn.username}/?status=in_progress`);
    expect(res.status).toBe(202);
    const { check_in_id } = (await res.json()) as { check_in_id: string };
    const done = await fetch(`${svc.baseUrl}/api/${ingestId}/cron/curl-job/${dsn.username}/?status=ok&check_in_id=${check_in_id}&duration=2`, {
      method: 'POST',
    });
    expect(done.status).toBe(202);
    const runs = (await call('/v1/monitors/curl-job/checkins?project_id=default')).body.data as Json[];
    expect(runs).toMatchObject([{ check_in_id, status: 'ok', duration_ms: 2000 }]);
    await expectError(await fetch(`${svc.baseUrl}/api/${ingestId}/cron/curl-job/0123456789abcdef0123456789abcdef/?status=ok`), 401, 'unauthorized');
    await expectError(await fetch(`${svc.baseUrl}/api/${ingestId}/cron/no-such-job/${dsn.username}/?status=ok`), 404, 'not_found');
  });
});

describe('uptime monitors', () => {
  let site: Receiver;
  let hooks: Receiver;
  beforeAll(async () => {
    site = await startReceiver();
    hooks = await startReceiver();
  });
  afterAll(async () => {
    await site?.close();
    await hooks?.close();
  });

  it('go down after failure_threshold failed checks and up at the first success, with one notification each way', async () => {
    await createRule(svc, { name: 'Monitors', type: 'new_issue', actions: [{ type: 'webhook', url: `${hooks.url}/monitors` }] });
    site.respond('/health', 503, 503, 503);
    const created = await call('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({
        project_id: 'default',
        slug: 'shop-site',
        type: 'uptime',
        url: `${site.url}/health`,
        interval_seconds: 1,
        failure_threshold: 2,
        timeout_ms: 1000,
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const [down] = await hooks.waitFor(1, (r) => r.json.state === 'firing', 20_000);
    expect(down!.json).toMatchObject({ state: 'firing', issue: { title: 'Monitor failure: shop-site' } });
    const [up] = await hooks.waitFor(1, (r) => r.json.state === 'resolved', 20_000);
    expect(up!.json).toMatchObject({ state: 'resolved', issue: { title: 'Monitor failure: shop-site' } });

    const monitor = (await call('/v1/monitors/shop-site?project_id=default')).body;
    expect(monitor).toMatchObject({ status: 'up', uptime_24h: expect.any(Number), latency_p50_ms: expect.any(Number) });
    expect(monitor.uptime_24h).toBeLessThan(100);
    const issue = (await call(`/v1/issues/${monitor.issue_id}`)).body;
    expect(issue.status).toBe('resolved');
    const checks = (await call('/v1/monitors/shop-site/checks?project_id=default&limit=10')).body.data as Json[];
    expect(checks.filter((c) => c.error === 'http_503')).toHaveLength(3);
    expect(checks[0]).toMatchObject({ ok: true, status_code: 200, error: null });
    expect(hooks.requests.filter((r) => r.path === '/monitors')).toHaveLength(2);
  });
});

describe('a one-minute crontab, in real time', () => {
  it('records the missed run as the monitor issue, and the next check-in resolves it', async () => {
    const created = await call('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({
        project_id: 'default',
        slug: 'every-minute',
        type: 'cron',
        schedule: { type: 'crontab', value: '* * * * *' },
        checkin_margin_minutes: 0,
      }),
    });
    expect(created.status).toBe(201);
    const missed = await until(
      'the missed run',
      async () => {
        const monitor = (await call('/v1/monitors/every-minute?project_id=default')).body;
        return monitor.status === 'missed' && monitor.issue_id ? monitor : undefined;
      },
      75_000,
    );
    const runs = (await call('/v1/monitors/every-minute/checkins?project_id=default')).body.data as Json[];
    expect(runs).toMatchObject([{ status: 'missed', expected_at: created.body.next_expected_at }]);
    const issue = (await call(`/v1/issues/${missed.issue_id}`)).body;
    expect(issue).toMatchObject({ title: 'Monitor failure: every-minute', status: 'unresolved', count: 1 });

    await call('/v1/monitors/every-minute/checkins?project_id=default', { method: 'POST', body: JSON.stringify({ status: 'ok' }) });
    expect((await call(`/v1/issues/${missed.issue_id}`)).body.status).toBe('resolved');
  }, 90_000);
});

describe('the monitors pages', () => {
  it('list the monitors with their status and show each one with its runs or checks, in Chromium', async () => {
    // The monitors the tests above made: a cron monitor with check-ins and an uptime monitor with checks.
    const password = await createUser(svc, 'monitors@example.com', 'member');
    const browser = await chromium.launch({ executablePath: browserBinary('chromium'), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${svc.baseUrl}/monitors`);
      await page.getByLabel('Email').fill('monitors@example.com');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/monitors$/);
      const row = page.locator('tr[data-monitor="shop-site"]');
      await expect(row.locator('td').nth(1).textContent()).resolves.toBe('uptime');
      // The site's server is closed by now, so the monitor may have gone down again: the page says what the API says.
      const status = (await call('/v1/monitors/shop-site?project_id=default')).body.status as string;
      expect(['up', 'down']).toContain(status);
      await expect(row.locator('td').nth(2).textContent()).resolves.toBe(status);
      await expect(row.locator('td').nth(5).textContent()).resolves.toMatch(/^\d+(\.\d+)? %$/);
      await expect(page.locator('tr[data-monitor="queue-drain"] td').nth(2).textContent()).resolves.toBe('error');

      await page.getByRole('link', { name: 'Queue.Drain' }).click();
      await expect(page.locator('h1').textContent()).resolves.toBe('Queue.Drain');
      await expect(page.locator('table.checkins tbody tr').count()).resolves.toBe(2);
      await expect(page.locator('table.checkins').textContent()).resolves.toContain('1500 ms');
      await page.getByRole('link', { name: 'Monitor failure: queue-drain' }).click();
      await expect(page.locator('h1').textContent()).resolves.toContain('Monitor failure: queue-drain');

      await page.goto(`${svc.baseUrl}/monitors/shop-site`);
      await expect(page.locator('table.checks tbody tr').count()).resolves.toBeGreaterThanOrEqual(4);
      await expect(page.locator('figure.chart svg').count()).resolves.toBe(1);
      expect((await page.goto(`${svc.baseUrl}/monitors/no-such-monitor`))?.status()).toBe(404);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
