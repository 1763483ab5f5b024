// A real Kafka-protocol broker on loopback for tests: the librdkafka mock cluster that Debian's
// `kcat` starts (`.ci/run` installs kcat). KafkaJS producers and consumer groups work against it;
// its idempotent producer and admin.createTopics do not (the mock reports controller id 0), so
// the tests turn idempotence off and rely on topic auto-creation (4 partitions per topic).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startService, tempDir } from './service.js';

export interface MockBroker {
  /** `127.0.0.1:PORT`. */
  brokers: string;
  /** SIGSTOP: the broker stops answering (an outage without losing what it holds). */
  pause(): void;
  /** SIGCONT: back. */
  resume(): void;
  stop(): Promise<void>;
}

export async function startMockBroker(): Promise<MockBroker> {
  const child: ChildProcess = spawn('kcat', ['-b', 'x', '-C', '-t', 'faultline.mock', '-X', 'test.mock.num.brokers=1', '-d', 'mock', '-q'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const brokers = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`kcat did not start a mock cluster:\n${seen}`)), 10_000);
    child.on('error', (error) => reject(new Error(`cannot run kcat (apt-get install kcat): ${error.message}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      if (seen.length < 10_000) seen += chunk.toString();
      const match = /bootstrap\.servers=(127\.0\.0\.1:\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  // The mock logs every request at debug level: keep reading, or kcat blocks on a full pipe.
  child.stderr?.resume();
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    brokers,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: async () => {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * The shared control plane as the tests stand it up: one catalog bootstrapped once (organization,
 * project, keys) and copied into each node's data directory before the node first starts.
 */
export async function seededDataDirs(count: number): Promise<{ dirs: string[]; liveKey: string; testKey: string; projectId: string }> {
  const seed = await startService({ keepData: true });
  const { liveKey, testKey, dataDir } = seed;
  const projects = (await (await seed.api('/v1/projects')).json()) as { data: Array<{ id: string }> };
  await seed.stop();
  const dirs = Array.from({ length: count }, () => {
    const dir = tempDir('faultline-node-');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(dataDir, 'faultline.duckdb'), join(dir, 'faultline.duckdb'));
    return dir;
  });
  return { dirs, liveKey, testKey, projectId: projects.data[0].id };
}
