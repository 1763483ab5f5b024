// Monitors, from outside: the service as a child process on the default config with the monitors
// receiver allowed to reach loopback and to check every second. A cron monitor made through
// POST /v1/monitors takes check-ins over HTTP at a fixed offered rate — on the /v1 route and on
// Sentry's cron route — against the same requests naming a slug the project does not have (auth,
// routing and the 404: the request without the check-in). Then 20 uptime monitors (interval 1 s)
// check a loopback server the bench runs, which counts the checks; the child's CPU over a few
// seconds with them, against the same seconds with them paused.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { measureLoad, idleCpuSeconds, interleaved, roundsFor, withPhaseChildren, type CpuLoad, type FeaturePhase, type PhaseChild } from './child-phase.js';
import { monitorsConfig } from './config-variants.js';

export type MonitorsResult = FeaturePhase;

const UPTIME_MONITORS = 20;

async function created(child: PhaseChild, body: Record<string, unknown>): Promise<void> {
  const res = await child.api('POST', '/v1/monitors', { project_id: 'default', ...body });
  if (res.status !== 201) throw new Error(`POST /v1/monitors: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Check-ins of `slug` at `rate` for `seconds`; every answered request counts (the unknown slug's are 404s). */
function checkIns(child: PhaseChild, route: 'v1' | 'sentry', slug: string, dsn: { ingestId: number; publicKey: string }, rate: number, seconds: number) {
  const { svc } = child;
  const v1 = route === 'v1';
  const body = Buffer.from(v1 ? JSON.stringify({ status: 'ok' }) : '');
  return measureLoad(svc, {
    url: v1 ? `${svc.baseUrl}/v1/monitors/${slug}/checkins?project_id=default` : `${svc.baseUrl}/api/${dsn.ingestId}/cron/${slug}/${dsn.publicKey}/?status=ok`,
    headers: v1 ? { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' } : {},
    nextBody: () => body,
    rate,
    seconds,
    warmup: 0.3,
    countEveryAnswer: true,
  });
}

/** The child's CPU over `seconds` while the loopback server counts the uptime checks it gets. */
async function uptimeWindow(child: PhaseChild, hits: () => number, seconds: number): Promise<CpuLoad> {
  const before = hits();
  const cpu = await idleCpuSeconds(child.svc, seconds);
  const checks = hits() - before;
  return { items: checks, rejected: 0, itemsPerSecond: checks / seconds, cpuSeconds: cpu, cpuMicrosPerItem: checks > 0 ? (cpu * 1e6) / checks : Number.NaN };
}

export async function measureMonitors(options: { seconds: number; rate?: number }): Promise<MonitorsResult> {
  const rate = options.rate ?? 30;
  const rounds = roundsFor(options.seconds);
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  const doc = monitorsConfig();
  try {
    return await withPhaseChildren([{ name: 'monitors', doc }], async ([child]) => {
      await created(child, { slug: 'bench-cron', type: 'cron', schedule: { type: 'interval', value: 1, unit: 'minute' } });
      const projects = await child.api<{ data: Array<{ ingest_id: number; keys: Array<{ type: string; public_key?: string }> }> }>('GET', '/v1/projects');
      const project = projects.body.data[0];
      const dsn = { ingestId: project.ingest_id, publicKey: project.keys.find((k) => k.type === 'dsn')?.public_key ?? '' };
      const cron = await interleaved(rounds, {
        v1: () => checkIns(child, 'v1', 'bench-cron', dsn, rate, options.seconds),
        v1Unknown: () => checkIns(child, 'v1', 'no-such-monitor', dsn, rate, options.seconds),
        sentry: () => checkIns(child, 'sentry', 'bench-cron', dsn, rate, options.seconds),
        sentryUnknown: () => checkIns(child, 'sentry', 'no-such-monitor', dsn, rate, options.seconds),
      });
      const window = Math.max(3, options.seconds);
      const idleBefore = await uptimeWindow(child, () => hits, window);
      for (let i = 0; i < UPTIME_MONITORS; i++) await created(child, { slug: `bench-uptime-${i}`, type: 'uptime', url, interval_seconds: 1 });
      await idleCpuSeconds(child.svc, 1.5); // the first checks, and the monitors' first state
      const uptime = await uptimeWindow(child, () => hits, window);
      for (let i = 0; i < UPTIME_MONITORS; i++) await child.api('PATCH', `/v1/monitors/bench-uptime-${i}?project_id=default`, { paused: true });
      const idleAfter = await uptimeWindow(child, () => hits, window);
      // Without: the CPU of the same seconds with no check due, charged to the checks of the window with them.
      const idleCpu = (idleBefore.cpuSeconds + idleAfter.cpuSeconds) / 2;
      const idle: CpuLoad = { ...uptime, cpuSeconds: idleCpu, cpuMicrosPerItem: uptime.items > 0 ? (idleCpu * 1e6) / uptime.items : Number.NaN };
      return {
        title: `MONITORS  the service (child process, default config, monitors may reach loopback every second); check-ins at ${rate}/s offered, ${options.seconds} s runs, interleaved; ${UPTIME_MONITORS} uptime monitors (1 s) for ${window} s`,
        item: 'check',
        rows: [
          { label: 'cron check-in, POST /v1/monitors/{slug}/checkins (without: an unknown slug, 404)', with: cron.v1, without: cron.v1Unknown },
          { label: "cron check-in, Sentry's POST /api/{id}/cron/{slug}/{key}/ (without: unknown slug)", with: cron.sentry, without: cron.sentryUnknown },
          { label: 'uptime check of a loopback server (without: the same seconds, monitors paused)', with: uptime, without: idle },
        ],
        notes: [
          'CPU of the whole service per answered request or per check the loopback server received (all threads, /proc/<pid>/stat); noisy on a shared machine',
        ],
      };
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
