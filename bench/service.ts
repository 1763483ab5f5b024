// Starting the service under test: as a child process (`node bin/faultline.js start`, the honest
// way to measure its RSS and CPU apart from the load generator), or in-process (for the reads,
// which compare each endpoint with the same SQL on the service's own DuckDB reader connection).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { defaultRegistry } from '../src/components.js';
import { parseConfigText, readConfigFile } from '../src/config/load.js';
import { resolveConfig } from '../src/config/resolve.js';
import { packageRoot } from '../src/paths.js';
import { Service } from '../src/service.js';
import { catalogOf } from '../extensions/catalog/index.js';

export const BIN = join(packageRoot, 'bin/faultline.js');

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
}

export async function startChild(options: ChildOptions): Promise<ChildService> {
  const args = [...(options.nodeArgs ?? []), BIN, 'start', ...(options.configFile ? ['--config', options.configFile] : [])];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      FAULTLINE_DATA_DIR: options.dataDir,
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
  const liveKey = /live key: (\S+)/.exec(stdout)?.[1];
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

export interface InProcessService {
  service: Service;
  baseUrl: string;
  liveKey: string;
  stop(): Promise<void>;
}

/** The service in this process on `dataDir` (bootstrapped on its first start, or seeded with a catalog whose live key is `seededKey`), as the tests start it. */
export async function startInProcess(
  dataDir: string,
  yaml?: string,
  options: { env?: Record<string, string>; seededKey?: string } = {},
): Promise<InProcessService> {
  const env = { FAULTLINE_DATA_DIR: dataDir, FAULTLINE_HTTP_PORT: '0', FAULTLINE_OTLP_PORT: '0', FAULTLINE_APP_URL: 'http://faultline.bench', ...options.env };
  const source = yaml ? parseConfigText(yaml, 'bench.yaml') : readConfigFile(undefined);
  const { config, errors } = resolveConfig(source, defaultRegistry(), env);
  if (!config) throw new Error(`invalid config: ${JSON.stringify(errors)}`);
  const service = await Service.open(config, pino({ level: 'silent' }));
  const started = await service.start();
  // A catalog bootstrapped by an earlier run (rows reused with --data: large.ts) gets a new key.
  const liveKey =
    started.bootstrap?.live.secret ?? options.seededKey ?? (await catalogOf(service.host).createKey({ dataset: 'live', projectId: 'default' })).secret;
  return {
    service,
    baseUrl: `http://127.0.0.1:${started.httpPort}`,
    liveKey,
    stop: () => service.stop(),
  };
}
