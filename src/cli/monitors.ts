// `faultline monitors list`: a project's cron and uptime monitors with their state, read from the
// running service's /v1/monitors with an API key.
import type { Command, Option } from 'commander';
import { fail } from './config.js';
import { defaultUrl } from './sourcemaps.js';
import { table } from './table.js';

interface ListOptions {
  project: string;
  url?: string;
  key?: string;
  json?: boolean;
  config?: string;
}

export function monitorsCommand(monitors: Command, configOption: () => Option): void {
  monitors
    .command('list')
    .description("A project's monitors: status, last check-in or check, next expected run, uptime")
    .requiredOption('--project <id>', 'the project')
    .option('--url <url>', 'the service (default: http://<service.http.host>:<service.http.port> of the configuration)')
    .option('--key <key>', 'an API key reaching the project (default: $FAULTLINE_KEY)')
    .option('--json', 'the monitors as a JSON array')
    .addOption(configOption())
    .action(async (options: ListOptions) => {
      const key = options.key ?? process.env.FAULTLINE_KEY;
      if (!key) fail('give an API key with --key or FAULTLINE_KEY');
      const base = (options.url ?? defaultUrl(options.config)).replace(/\/+$/, '');
      const all: Array<Record<string, unknown>> = [];
      let cursor: string | null = null;
      do {
        const query = new URLSearchParams({ project_id: options.project, limit: '1000', ...(cursor ? { cursor } : {}) });
        const res = await fetch(`${base}/v1/monitors?${query.toString()}`, { headers: { authorization: `Bearer ${key}` } }).catch((error: unknown) =>
          fail(`cannot reach ${base}: ${(error as Error).message}`),
        );
        const body = (await res.json().catch(() => ({}))) as {
          data?: Array<Record<string, unknown>>;
          next_cursor?: string | null;
          error?: { message: string };
        };
        if (!res.ok || !body.data) fail(body.error?.message ?? `the service answered ${res.status}`);
        all.push(...body.data);
        cursor = body.next_cursor ?? null;
      } while (cursor);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
        return;
      }
      const rows = all.map((m) => ({ ...m, uptime: m.uptime_24h === undefined || m.uptime_24h === null ? '' : `${String(m.uptime_24h)}%` }));
      process.stdout.write(
        `${table(rows, ['slug', 'type', 'status', 'last_checkin_at', 'next_expected_at', 'uptime'], ['slug', 'type', 'status', 'last check-in', 'next expected', 'uptime 24h'])}\n`,
      );
    });
}
