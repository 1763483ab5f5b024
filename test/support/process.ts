// Runs the built `faultline` command as a child process (the suite builds dist/ first).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

const BIN = join(packageRoot, 'bin/faultline.js');

export interface RunningProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  liveKey?: string;
  testKey?: string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
}

export function childEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    FAULTLINE_DATA_DIR: dataDir,
    FAULTLINE_HTTP_PORT: '0',
    FAULTLINE_OTLP_PORT: '0',
    FAULTLINE_LOG_LEVEL: 'warn',
    FAULTLINE_RETENTION_EVENTS_DAYS: '36500', // fixtures carry fixed dates (see service.ts)
    FAULTLINE_RETENTION_TRACES_DAYS: '36500',
    ...extra,
  };
}

export async function startProcess(dataDir: string, args: string[] = [], env: Record<string, string> = {}): Promise<RunningProcess> {
  const child = spawn(process.execPath, [BIN, 'start', ...args], { env: childEnv(dataDir, env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', () => {
    if (stdout.length > 1_000_000) stdout = stdout.slice(-500_000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`faultline did not start in time\n${stdout}\n${stderr}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /HTTP on [^:]+:(\d+)/.exec(stdout);
      // The bootstrap keys follow the first line in the same write.
      if (match && (!stdout.includes('Created organization') || /test key: \S+/.test(stdout))) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then((code) => reject(new Error(`faultline exited with ${code}\n${stdout}\n${stderr}`)));
  });
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    liveKey: /live key: (\S+)/.exec(stdout)?.[1],
    testKey: /test key: (\S+)/.exec(stdout)?.[1],
    exited,
    output: () => `${stdout}\n${stderr}`,
  };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
