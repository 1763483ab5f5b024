// A real Kafka-protocol broker on loopback for tests and the bench: the librdkafka mock cluster
// that Debian's `kcat` starts (`.ci/run` installs kcat). KafkaJS producers and consumer groups work
// against it; its idempotent producer and admin.createTopics do not (the mock reports controller
// id 0), so callers turn idempotence off and rely on topic auto-creation (4 partitions per topic).
import { spawn, type ChildProcess } from 'node:child_process';

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
