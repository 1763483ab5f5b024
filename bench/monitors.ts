// The uptime check runner's cost, in process: CPU per check of a monitor (the request through the
// destination guard, the result recorded in DuckDB, the monitor's state saved) against a bare
// node:http GET of the same loopback URL, measured in the same run.
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { Monitors } from '../receivers/monitors/monitors.js';
import { probe } from '../receivers/monitors/probe.js';
import { MonitorStore } from '../src/storage/monitors.js';
import { createMonitorSchema } from '../receivers/monitors/input.js';
import { DestinationGuard } from '../src/net/destinations.js';
import { tempDir } from './service.js';
import { benchDatabase } from './extensions.js';

interface Rate {
  checksPerSecond: number;
  cpuMicrosPerCheck: number;
}

export interface MonitorsResult {
  bare: Rate;
  check: Rate;
}

async function measure(once: () => Promise<unknown>, seconds: number): Promise<Rate> {
  for (let i = 0; i < 50; i++) await once(); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    await once();
    n++;
  }
  const cpu = process.cpuUsage(cpu0);
  return { checksPerSecond: n / ((performance.now() - t0) / 1000), cpuMicrosPerCheck: (cpu.user + cpu.system) / n };
}

export async function measureMonitors(options: { seconds: number }): Promise<MonitorsResult> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  const dir = tempDir('faultline-bench-monitors-');
  const db = await benchDatabase(dir, ['catalog']);
  try {
    const guard = new DestinationGuard({ allowPrivate: true, resolve: async () => ['127.0.0.1'] });
    const monitors = new Monitors({
      store: await MonitorStore.open(db),
      probe: (settings) => probe(settings, { guard, maxRedirects: 3 }),
      emit: async () => undefined,
      resolveIssue: async () => undefined,
    });
    const monitor = await monitors.create(
      { dataset: 'live', orgId: 'default', projectId: 'default' },
      createMonitorSchema.parse({ type: 'uptime', slug: 'bench', url, interval_seconds: 60 }),
    );
    const bare = await measure(
      () =>
        new Promise<void>((resolve, reject) => {
          get(url, (res) => {
            res.resume();
            res.on('end', resolve);
          }).on('error', reject);
        }),
      options.seconds,
    );
    const check = await measure(() => monitors.check(monitor), options.seconds);
    return { bare, check };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    await new Promise((resolve) => server.close(resolve));
  }
}
