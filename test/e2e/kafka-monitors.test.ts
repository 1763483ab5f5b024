// Monitors on the Kafka roles (issue #27): a monitor created on the ingest node reaches every node
// through the control plane; of two workers, the one given the monitor's partition of
// faultline.monitors records its missed run, exactly once; a check-in through the ingest node closes
// the failure; an uptime monitor created on the query node is checked by one worker only; the query
// node reads it all (API and page); when the deciding worker stops, the other takes the monitor
// over; a pause and a deletion made on one node hold on every node. The monitors' clock is moved forward (receivers/monitors/clock.ts) to
// reach the next run of a one-minute schedule without waiting for it.
import { afterAll, describe, expect, it } from 'vitest';
import { monitorClock } from '../../receivers/monitors/clock.js';
import { seededDataDirs, startMockBroker, type MockBroker } from '../support/kafka.js';
import { roleEnv, roleYaml, until } from '../support/kafka-roles.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { createUser, WebClient } from '../support/web.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are checked field by field
type Json = Record<string, any>;

const MINUTE = 60_000;
/** The librdkafka mock's partitions per auto-created topic. */
const PARTITIONS = 4;

async function metric(node: TestService, name: string): Promise<number> {
  const text = await (await node.api('/metrics', { key: null })).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const missedCount = (node: TestService) => metric(node, 'faultline_monitor_failures_total{kind="missed"}');
const partitions = (node: TestService) => metric(node, 'faultline_monitor_partitions');
const checksRun = (node: TestService) => metric(node, 'faultline_monitor_checks_total{result="ok"}');

describe('monitors across the Kafka roles', () => {
  let broker: MockBroker | undefined;
  let site: Receiver | undefined;
  const services: TestService[] = [];

  afterAll(async () => {
    monitorClock.offsetMs = 0;
    await site?.close();
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
  });

  it('decides each monitor once, on the worker that owns its partition, and hands it over when that worker stops', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const seeded = await seededDataDirs(4);
    const keys = { live: seeded.liveKey, test: seeded.testKey };
    const lake = tempDir('faultline-shared-lake-');
    const start = async (role: 'ingest' | 'worker' | 'query', index: number, workerId = 'w1') => {
      const node = await startService({ yaml: roleYaml(role), dataDir: seeded.dirs[index], keys, env: roleEnv(broker!.brokers, lake, workerId) });
      services.push(node);
      return node;
    };
    const ingest = await start('ingest', 0);
    const workers = [await start('worker', 1, 'w1'), await start('worker', 2, 'w2')];
    const query = await start('query', 3);
    const project = seeded.projectId;
    const read = async (node: TestService, path: string): Promise<{ status: number; body: Json }> => {
      const res = await node.api(path);
      return { status: res.status, body: res.status === 200 ? ((await res.json()) as Json) : {} };
    };
    const monitorOn = async (node: TestService) => read(node, `/v1/monitors/nightly?project_id=${project}`);

    // Created on the ingest node: every node has it, through the control plane.
    const created = await ingest.api('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({
        project_id: project,
        slug: 'nightly',
        type: 'cron',
        schedule: { type: 'interval', value: 1, unit: 'minute' },
        checkin_margin_minutes: 0,
      }),
    });
    expect(created.status).toBe(201);
    const expectedAt = ((await created.json()) as Json).next_expected_at as string;
    for (const node of [...workers, query])
      await until('the monitor on every node', async () => ((await monitorOn(node)).status === 200 ? true : undefined), 30_000);
    expect((await monitorOn(query)).body).toMatchObject({ status: 'new', next_expected_at: expectedAt });

    // An uptime monitor created on the query node, of a loopback site.
    site = await startReceiver();
    const uptime = await query.api('/v1/monitors', {
      method: 'POST',
      body: JSON.stringify({ project_id: project, slug: 'site', type: 'uptime', url: `${site.url}/health`, interval_seconds: 1 }),
    });
    expect(uptime.status).toBe(201);

    // The group has shared the topic's partitions between the two workers.
    await until(
      'the partitions shared by both workers',
      async () => {
        const owned = await Promise.all(workers.map(partitions));
        return owned[0] > 0 && owned[1] > 0 && owned[0] + owned[1] === PARTITIONS ? true : undefined;
      },
      45_000,
    );

    // Two minutes later by the monitors' clock, the run expected one minute after creation is missed.
    monitorClock.offsetMs += 2 * MINUTE;
    const missed = await until('the missed run on the query node', async () => {
      const { body } = await monitorOn(query);
      return body.status === 'missed' && body.issue_id ? body : undefined;
    });
    // Several detection rounds later, still one missed run, recorded by one worker only.
    await new Promise((r) => setTimeout(r, 1500));
    const counts = await Promise.all(workers.map(missedCount));
    expect([...counts].sort()).toEqual([0, 1]);
    const owner = workers[counts.indexOf(1)];
    const checkins = (await read(query, `/v1/monitors/nightly/checkins?project_id=${project}`)).body.data as Json[];
    expect(checkins.map((c) => [c.status, c.expected_at])).toEqual([['missed', expectedAt]]);
    const issue = await until('the failure event in the issue, on the query node', async () => {
      const { body } = await read(query, `/v1/issues/${missed.issue_id}`);
      return body.count === 1 ? body : undefined;
    });
    expect(issue).toMatchObject({ title: 'Monitor failure: nightly', status: 'unresolved' });

    // The site is checked by one worker only (each check a request the site saw), and read on the query node.
    const checks = await until('uptime checks on the query node', async () => {
      const data = (await read(query, `/v1/monitors/site/checks?project_id=${project}`)).body.data as Json[] | undefined;
      return data && data.length >= 3 ? data : undefined;
    });
    expect(checks.every((c) => c.ok === true && c.status_code === 200)).toBe(true);
    expect((await read(query, `/v1/monitors/site?project_id=${project}`)).body).toMatchObject({ status: 'up', uptime_24h: 100 });
    const checkedBy = await Promise.all(workers.map(checksRun));
    expect(checkedBy.filter((n) => n > 0)).toHaveLength(1);
    expect(site.requests.length - (checkedBy[0] + checkedBy[1])).toBeLessThanOrEqual(1); // at most one check in flight

    // A run opened through the ingest node's /v1 API and closed through its Sentry cron route (the
    // project's DSN key) reaches the deciding worker: the monitor is ok, its issue resolved.
    const opened = await ingest.api(`/v1/monitors/nightly/checkins?project_id=${project}`, { method: 'POST', body: JSON.stringify({ status: 'in_progress' }) });
    expect(opened.status).toBe(202);
    const { check_in_id: checkInId } = (await opened.json()) as Json;
    const projects = (await read(ingest, '/v1/projects')).body.data as Json[];
    const dsn = new URL(projects.find((p) => p.id === project)!.dsn as string);
    const closed = await fetch(`${ingest.baseUrl}/api${dsn.pathname}/cron/nightly/${dsn.username}/?status=ok&check_in_id=${checkInId}`);
    expect(closed.status).toBe(202);
    expect(((await closed.json()) as Json).check_in_id).toBe(checkInId);
    await until('the check-in on the query node', async () => ((await monitorOn(query)).body.status === 'ok' ? true : undefined));
    await until('the issue resolved on the query node', async () =>
      (await read(query, `/v1/issues/${missed.issue_id}`)).body.status === 'resolved' ? true : undefined,
    );
    const afterCheckin = (await read(query, `/v1/monitors/nightly/checkins?project_id=${project}`)).body.data as Json[];
    expect(afterCheckin.map((c) => [c.check_in_id, c.status])).toEqual([
      [checkInId, 'ok'],
      [expect.any(String), 'missed'],
    ]);
    expect(afterCheckin[0].duration_ms).toBeGreaterThanOrEqual(0);

    // The query node's page shows the same runs.
    const password = await createUser(query, 'roles@example.com', 'member');
    const web = new WebClient(query.baseUrl);
    await web.signIn('roles@example.com', password, '/monitors');
    const page = await (await web.fetch('/monitors/nightly')).text();
    expect(page).toContain('missed');
    expect(page).toContain('Monitor failure: nightly');

    // The deciding worker stops: the other is given every partition, and with them the monitor.
    const survivor = workers.find((w) => w !== owner)!;
    await owner.stop();
    services.splice(services.indexOf(owner), 1);
    await until('every partition on the surviving worker', async () => ((await partitions(survivor)) === PARTITIONS ? true : undefined), 30_000);
    const before = await missedCount(survivor);
    const nextExpected = (await monitorOn(query)).body.next_expected_at as string;
    monitorClock.offsetMs += 2 * MINUTE;
    await until('the next missed run, recorded by the survivor', async () => ((await missedCount(survivor)) === before + 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    expect(await missedCount(survivor)).toBe(before + 1);
    const final = await until('the second missed run on the query node', async () => {
      const data = (await read(query, `/v1/monitors/nightly/checkins?project_id=${project}`)).body.data as Json[];
      return data.length === 3 ? data : undefined;
    });
    expect(final.map((c) => c.status)).toEqual(['missed', 'ok', 'missed']);
    expect(final[0].expected_at).toBe(nextExpected);
    expect((await monitorOn(query)).body.status).toBe('missed');
    // The issue regressed with the second failure: two events, each once.
    await until('the second failure event on the query node', async () =>
      (await read(query, `/v1/issues/${missed.issue_id}`)).body.count === 2 ? true : undefined,
    );

    // Paused on the query node: the worker sees it and records no more missed runs.
    const paused = await query.api(`/v1/monitors/nightly?project_id=${project}`, { method: 'PATCH', body: JSON.stringify({ paused: true }) });
    expect(paused.status).toBe(200);
    for (const node of [ingest, survivor])
      await until('the pause on every node', async () => ((await monitorOn(node)).body.status === 'paused' ? true : undefined));
    monitorClock.offsetMs += 2 * MINUTE;
    await new Promise((r) => setTimeout(r, 1500));
    expect(await missedCount(survivor)).toBe(before + 1);

    // Deleted on the ingest node: gone on every node.
    expect((await ingest.api(`/v1/monitors/nightly?project_id=${project}`, { method: 'DELETE' })).status).toBe(204);
    for (const node of [survivor, query]) await until('the deletion on every node', async () => ((await monitorOn(node)).status === 404 ? true : undefined));
  });
});
