// The service as a user runs it: the built `faultline` command in its own process.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { fullEvent, tempDir } from '../support/service.js';
import { childEnv, lastLine, runCli, startProcess, type RunningProcess } from '../support/process.js';

const dirs: string[] = [];
function freshDir(): string {
  const dir = tempDir('faultline-proc-');
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function post(proc: RunningProcess, key: string, body: unknown, path = '/v1/events'): Promise<Response> {
  return fetch(proc.baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function getEvent(proc: RunningProcess, key: string, id: string): Promise<Response> {
  return fetch(`${proc.baseUrl}/v1/events/${id}`, { headers: { authorization: `Bearer ${key}` } });
}

describe('faultline start', () => {
  it('prints the bootstrap keys once, on the first start only', async () => {
    const dir = freshDir();
    const first = await startProcess(dir);
    expect(first.liveKey).toMatch(/^fl_live_[0-9A-Za-z]{32}$/);
    expect(first.testKey).toMatch(/^fl_test_[0-9A-Za-z]{32}$/);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = await startProcess(dir);
    expect(second.liveKey).toBeUndefined();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('logs a deprecated service key at start, and still applies it', async () => {
    const dir = freshDir();
    const file = join(dir, 'deprecated.yaml');
    writeFileSync(
      file,
      readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8').replace(/^service:\n/m, 'service:\n  limits: { event_body_bytes: 4096 }\n'),
    );
    const proc = await startProcess(dir, ['--config', file]);
    try {
      // The log line may arrive just after the line that says the service is up.
      for (let i = 0; i < 50 && !proc.output().includes('is deprecated'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(proc.output()).toMatch(
        /service\.limits\.event_body_bytes: is deprecated and will be removed in the next release: set receivers\.http_api\.max_event_bytes instead/,
      );
      const key = proc.liveKey as string;
      expect((await post(proc, key, { ...fullEvent(), message: 'x'.repeat(8192) })).status).toBe(413);
      expect((await post(proc, key, fullEvent())).status).toBe(202);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  });

  it('keeps every acknowledged event through kill -9 and a restart', async () => {
    const dir = freshDir();
    const proc = await startProcess(dir);
    const key = proc.liveKey as string;
    const responses = await Promise.all(Array.from({ length: 60 }, () => post(proc, key, fullEvent())));
    const acked = await Promise.all(responses.filter((r) => r.status === 202).map((r) => r.json() as Promise<{ id: string }>));
    expect(acked.length).toBe(60);
    proc.child.kill('SIGKILL');
    expect(await proc.exited).toBe('SIGKILL');

    const again = await startProcess(dir);
    for (const { id } of acked) expect((await getEvent(again, key, id)).status).toBe(200);
    const list = (await (await fetch(`${again.baseUrl}/v1/events?project_id=default&limit=1000`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: unknown[];
    };
    expect(list.data.length).toBe(60);
    again.child.kill('SIGKILL');
    await again.exited;
  });

  it('drains on SIGTERM: requests in flight finish, the process exits 0, and what was acknowledged is stored', async () => {
    const dir = freshDir();
    const proc = await startProcess(dir);
    const key = proc.liveKey as string;
    const inFlight = Array.from({ length: 40 }, () => post(proc, key, fullEvent()).catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 5));
    proc.child.kill('SIGTERM');
    const responses = await Promise.all(inFlight);
    expect(await proc.exited).toBe(0);
    const statuses = responses.map((r) => r?.status);
    expect(statuses.every((s) => s === undefined || s === 202 || s === 503)).toBe(true);
    const acked = await Promise.all(responses.filter((r) => r?.status === 202).map((r) => (r as Response).json() as Promise<{ id: string }>));
    expect(acked.length).toBeGreaterThan(0);

    const again = await startProcess(dir);
    for (const { id } of acked) expect((await getEvent(again, key, id)).status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});

describe('faultline keys and projects', () => {
  it('work while the service runs: create a project and a project key, use it, revoke it', async () => {
    const dir = freshDir();
    const proc = await startProcess(dir);
    const env = childEnv(dir);

    const project = await runCli(['projects', 'create', '--id', 'shop', '--name', 'Shop', '--platform', 'node'], env);
    expect(project).toMatchObject({ code: 0 });
    const created = await runCli(['keys', 'create', '--project', 'shop', '--name', 'ci'], env);
    expect(created.code).toBe(0);
    const secret = lastLine(created.stdout);
    expect(secret).toMatch(/^fl_live_[0-9A-Za-z]{32}$/);

    const ack = await post(proc, secret, fullEvent());
    expect(ack.status).toBe(202);
    const { id } = (await ack.json()) as { id: string };
    const event = (await (await getEvent(proc, secret, id)).json()) as { project_id: string };
    expect(event.project_id).toBe('shop');

    const listed = await runCli(['keys', 'list'], env);
    // The project's API key (it also has the DSN key every project gets).
    const row = listed.stdout.split('\n').find((line) => line.includes('project:shop') && /\sapi\s/.test(line));
    expect(row).toBeDefined();
    expect(listed.stdout).not.toContain(secret);
    const keyId = (row as string).split(/\s+/)[0];
    expect((await runCli(['keys', 'revoke', keyId], env)).code).toBe(0);
    expect((await post(proc, secret, fullEvent())).status).toBe(401);
    expect((await runCli(['keys', 'revoke', keyId], env)).code).toBe(1);

    const projects = await runCli(['projects', 'list'], env);
    expect(projects.stdout).toMatch(/^shop\s+2\s+Shop\s+node/m);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('work while the service is stopped, and the service honours them at its next start', async () => {
    const dir = freshDir();
    const first = await startProcess(dir);
    first.child.kill('SIGTERM');
    await first.exited;

    const env = childEnv(dir);
    const created = await runCli(['keys', 'create', '--org', '--test'], env);
    expect(created.code).toBe(0);
    const secret = lastLine(created.stdout);
    expect(secret).toMatch(/^fl_test_/);
    expect((await runCli(['keys', 'create', '--project', 'nope'], env)).code).toBe(1);
    expect((await runCli(['keys', 'create'], env)).stderr).toMatch(/--org or --project/);

    const proc = await startProcess(dir);
    expect((await post(proc, secret, fullEvent())).status).toBe(202);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });
});

describe('faultline validate', () => {
  it('exits 0 with a summary of the pipelines for a valid file', async () => {
    const result = await runCli(['validate'], process.env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid, 3 pipeline/);
    expect(result.stdout).toMatch(
      /events: http_api, exceptions, monitors -> validation -> scrubbing -> symbolication -> grouping -> issues -> alerting -> duckdb/,
    );
    expect(result.stdout).toMatch(/traces: http_api, otlp -> validation -> scrubbing -> alerting -> duckdb, exceptions/);
    expect(result.stdout).toMatch(/connector exceptions: traces -> events/);
    expect(result.stdout).toMatch(/reads: events from duckdb; traces from duckdb; replays from duckdb/);
    expect(result.stdout).toMatch(/replays: http_api -> validation -> scrubbing -> duckdb/);
  });

  it('exits 1 and prints every error with its YAML path', async () => {
    const file = join(freshDir(), 'bad.yaml');
    writeFileSync(
      file,
      `receivers: { http_api: {} }
exporters: { duckdb: { max_batch_items: 0 } }
service:
  pipelines:
    events: { receivers: [http_api], processors: [nope], exporters: [duckdb] }
`,
    );
    const result = await runCli(['validate', '--config', file], process.env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/exporters\.duckdb\.max_batch_items/);
    expect(result.stdout).toMatch(/line 5: service\.pipelines\.events\.processors\[0\]: no processor "nope"/);
  });

  it('names a misspelt key at its YAML path with the closest known key, and nothing that only follows from it', async () => {
    const file = join(freshDir(), 'misspelt.yaml');
    writeFileSync(
      file,
      readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8')
        .replace(/^ {2}alerting: \{\}.*$/m, '  alerting:\n    allow_private_destinatons: true\n    delivery: { atempts: 3 }')
        .replace(/^ {2}duckdb: \{\}$/m, '  duckdb: { max_batch_itms: 10 }')
        .replace(/^( {2}http:\n {4}host: .*\n) {4}port: 8080$/m, '$1    prot: 8080'),
    );
    const result = await runCli(['validate', '--config', file], process.env);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/4 error\(s\)$/);
    expect(lines.slice(1)).toHaveLength(4);
    expect(lines.slice(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^ {2}line \d+: processors\.alerting\.allow_private_destinatons: unknown key "allow_private_destinatons"; did you mean "allow_private_destinations"\?$/,
        ),
        expect.stringMatching(/^ {2}line \d+: processors\.alerting\.delivery\.atempts: unknown key "atempts"; did you mean "attempts"\?$/),
        expect.stringMatching(/^ {2}line \d+: exporters\.duckdb\.max_batch_itms: unknown key "max_batch_itms"; did you mean "max_batch_items"\?$/),
        expect.stringMatching(/^ {2}line \d+: service\.http\.prot: unknown key "prot"; did you mean "port"\?$/),
      ]),
    );
    // No "no processor alerting is configured" for the pipelines that list the misconfigured component.
    expect(result.stdout).not.toMatch(/is configured under/);
  });

  it('prints a deprecated service key as a warning naming the component key that replaced it, and exits 0', async () => {
    const file = join(freshDir(), 'deprecated.yaml');
    writeFileSync(file, readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8').replace(/^service:\n/m, 'service:\n  lake: { path: /srv/lake }\n'));
    const result = await runCli(['validate', '--config', file], process.env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid, 3 pipeline/);
    // Only the parquet exporter reads service.lake, and the default config has none: nothing took it over.
    expect(result.stdout).not.toMatch(/warning/);

    writeFileSync(
      file,
      readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8').replace(/^service:\n/m, 'service:\n  limits: { event_body_bytes: 4096 }\n'),
    );
    const warned = await runCli(['validate', '--config', file], process.env);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toMatch(
      /1 warning\(s\)\n {2}line \d+: service\.limits\.event_body_bytes: is deprecated and will be removed in the next release: set receivers\.http_api\.max_event_bytes instead/,
    );
  });

  it('a missing file reports only that', async () => {
    const file = join(freshDir(), 'missing.yaml');
    const result = await runCli(['validate', '--config', file], process.env);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      `${file}: 1 error(s)`,
      `  (root): cannot read ${file}: ENOENT: no such file or directory, open '${file}'`,
    ]);
  });

  it('prints every broken contract: requirements, singletons, connectors, storage', async () => {
    const file = join(freshDir(), 'contracts.yaml');
    writeFileSync(
      file,
      `receivers: { http_api: {}, otlp: {} }
processors: { validation: {}, scrubbing: { enabled: false } }
exporters: { duckdb: {}, duckdb/again: {} }
connectors: { exceptions: {} }
service:
  storage: { events: [parquet] }
  pipelines:
    events: { receivers: [http_api, otlp], processors: [validation], exporters: [duckdb] }
    traces: { receivers: [otlp], exporters: [duckdb, exceptions] }
`,
    );
    const result = await runCli(['validate', '--config', file], process.env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/6 error\(s\)/);
    expect(result.stdout).toMatch(
      /line 9: service\.pipelines\.traces\.exporters\[1\]: connector "exceptions" needs validated on traces: add the validation processor before it/,
    );
    expect(result.stdout).toMatch(/line 3: exporters\.duckdb\/again: only one exporter of type "duckdb" may be configured/);
    expect(result.stdout).toMatch(/line 8: service\.pipelines\.events\.receivers\[1\]: receiver "otlp" does not handle events .*exceptions connector/);
    expect(result.stdout).toMatch(/line 4: connectors\.exceptions: connector "exceptions" is a receiver of no events pipeline/);
    expect(result.stdout).toMatch(/line 6: service\.storage\.events\[0\]: no exporter "parquet" is configured under exporters/);
  });
});

describe('faultline components', () => {
  it('lists every registered component, as a table or as JSON', async () => {
    const human = await runCli(['components'], process.env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^receiver\s+http_api\s+events \(beta\), traces \(beta\), replays \(alpha\)\s+yes/m);
    const json = await runCli(['components', '--json'], process.env);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as Array<{ kind: string; type: string }>;
    expect(list.map((c) => `${c.kind}:${c.type}`)).toEqual([
      'receiver:http_api',
      'receiver:otlp',
      'receiver:kafka',
      'receiver:monitors',
      'processor:validation',
      'processor:scrubbing',
      'processor:symbolication',
      'processor:grouping',
      'processor:issues',
      'processor:alerting',
      'exporter:duckdb',
      'exporter:parquet',
      'exporter:kafka',
      'connector:exceptions',
    ]);
  });
});
