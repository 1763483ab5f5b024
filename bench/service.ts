// Starting the service under test as a child process (`node bin/faultline.js start`, the honest
// way to measure its RSS and CPU apart from the load generator), and what the bench needs from it
// through its public interfaces only: the keys it prints on its first start, the project's DSN
// over HTTP, web app users through the CLI and a session through the sign-in form.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from './paths.js';

export { BIN };

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface ChildService {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  otlpUrl: string;
  liveKey: string;
  dataDir: string;
  stderr(): string;
  /** SIGTERM (graceful: drain, flush, checkpoint) and wait for the exit. */
  stop(): Promise<number | string>;
}

export interface ChildOptions {
  dataDir: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** A YAML config file (else the embedded default). */
  configFile?: string;
  env?: Record<string, string>;
  /** The key to use on a data directory bootstrapped by an earlier start (its keys are printed once). */
  liveKey?: string;
}

export async function startChild(options: ChildOptions): Promise<ChildService> {
  const args = [...(options.nodeArgs ?? []), BIN, 'start', ...(options.configFile ? ['--config', options.configFile] : [])];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      FAULTLINE_DATA_DIR: options.dataDir,
      FAULTLINE_APP_URL: 'http://faultline.bench',
      FAULTLINE_HTTP_PORT: '0',
      FAULTLINE_OTLP_PORT: '0',
      FAULTLINE_LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 1_000_000) stderr = stderr.slice(-500_000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`faultline did not start in time\n${stdout}\n${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (
        /HTTP on [^:]+:\d+/.test(stdout) &&
        /otlp listening on port \d+/.test(stdout) &&
        (!stdout.includes('Created organization') || /test key: \S+/.test(stdout))
      ) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`faultline exited with ${code}\n${stdout}\n${stderr}`)));
  });
  const port = Number(/HTTP on [^:]+:(\d+)/.exec(stdout)?.[1]);
  const otlpPort = Number(/otlp listening on port (\d+)/.exec(stdout)?.[1]);
  const liveKey = /live key: (\S+)/.exec(stdout)?.[1] ?? options.liveKey;
  if (!liveKey) throw new Error(`faultline printed no live key (not a fresh data directory?)\n${stdout}`);
  return {
    child,
    pid: child.pid as number,
    baseUrl: `http://127.0.0.1:${port}`,
    otlpUrl: `http://127.0.0.1:${otlpPort}`,
    liveKey,
    dataDir: options.dataDir,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** `node bin/faultline.js ARGS` on a data directory (the admin commands work while the service runs). */
export function runCli(args: string[], dataDir: string, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, FAULTLINE_DATA_DIR: dataDir, FAULTLINE_LOG_LEVEL: 'warn' }, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => (error ? reject(new Error(`faultline ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout)),
    );
    child.stdin?.end(input ?? '');
  });
}

/** The default project's ingest id and DSN public key (GET /v1/projects), for Sentry envelopes. */
export async function sentryTarget(baseUrl: string, key: string): Promise<{ path: string; headers: Record<string, string> }> {
  const res = await fetch(`${baseUrl}/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
  if (!res.ok) throw new Error(`GET /v1/projects: ${res.status} ${await res.text()}`);
  const project = ((await res.json()) as { data: Array<{ id: string; ingest_id: number; dsn: string }> }).data.find((p) => p.dsn);
  const publicKey = project && /\/\/([^@:]+)@/.exec(project.dsn)?.[1];
  if (!project || !publicKey) throw new Error('no project with a DSN');
  return {
    path: `/api/${project.ingest_id}/envelope/`,
    headers: {
      'x-sentry-auth': `Sentry sentry_key=${publicKey}, sentry_version=7, sentry_client=sentry.javascript.browser/8.42.0`,
      'content-type': 'application/x-sentry-envelope',
    },
  };
}

/** A web app user made with the CLI, signed in through the form: the session cookie a browser would hold. */
export async function webSession(baseUrl: string, dataDir: string): Promise<string> {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'bench-password-1234';
  await runCli(['users', 'create', '--email', email, '--role', 'member'], dataDir, `${password}\n`);
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0];
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const page = await fetch(`${baseUrl}/signin`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  keep(page);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('no CSRF token on the sign-in page');
  const res = await fetch(`${baseUrl}/signin`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ _csrf: csrf, email, password, next: '/issues' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl, cookie: cookieHeader(), accept: 'text/html' },
  });
  keep(res);
  const session = cookies.get('fl_session');
  if (res.status !== 302 && res.status !== 303 && !session) throw new Error(`sign-in answered ${res.status}`);
  if (!session) throw new Error('sign-in set no session cookie');
  return `fl_session=${session}`;
}
