// Issue #31's "done when", as processes: two ingest processes and two workers (each `faultline
// start --config` of the example roles) on one shared lake, joined by the librdkafka mock broker.
// The worker taking the events is killed with SIGKILL mid-stream and never restarted: whatever it
// had consumed and not published to the lake was not committed (parquet `ack: lake`), so the
// survivor reads it again after the rebalance, and every acknowledged event and span is readable
// exactly once through the query role within 60 s. Run twice: the lake on a shared directory, and
// on an S3-compatible bucket (s3rver on loopback; each node then has a local directory of its own).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockBroker, seededDataDirs, type MockBroker } from '../support/kafka.js';
import { listEventIds, postEventsAcked, roleEnv, roleYaml, spanCountBy, type Role } from '../support/kafka-roles.js';
import { startProcess, type RunningProcess } from '../support/process.js';
import { startS3, type LoopbackS3 } from '../support/s3.js';
import { startService, tempDir, type TestService } from '../support/service.js';

// The sizes of the measurement (2,000 events, 20,000 spans).
const EVENTS = 2000;
const TRACES = 20;
const SPANS_PER_TRACE = 1000;
/** How long after the rebalance every acknowledged item must be readable. */
const READABLE_WITHIN_MS = 60_000;
/** The test workers' session timeout (test/support/kafka-roles.ts) plus the mock's rebalance. */
const REBALANCE_MS = 5000;

/** Where the nodes keep the lake: each node's local lake directory, and the parquet exporter's `s3` section if any. */
interface LakeSetup {
  dirFor(node: string): string;
  s3?: Record<string, unknown>;
  env: Record<string, string>;
}

describe('two ingest processes, two workers, one lake, a worker killed mid-stream and never restarted', () => {
  let broker: MockBroker | undefined;
  let s3: LoopbackS3 | undefined;
  let processes: RunningProcess[] = [];
  let query: TestService | undefined;

  const stopAll = async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    processes = [];
    await query?.stop();
    query = undefined;
    await broker?.stop();
    broker = undefined;
  };
  afterAll(async () => {
    await stopAll();
    await s3?.stop();
  });

  it('on a shared lake directory: loses nothing acknowledged and duplicates nothing in reads', { timeout: 240_000 }, async () => {
    const lake = tempDir('faultline-shared-lake-');
    await killAWorker({ dirFor: () => lake, env: {} });
  });

  it('on an S3 bucket: loses nothing acknowledged and duplicates nothing in reads', { timeout: 240_000 }, async () => {
    s3 = await startS3();
    const local = tempDir('faultline-node-lakes-');
    await killAWorker({ dirFor: (node) => join(local, node), s3: { ...s3.lakeConfig('roles'), refresh_ms: 300 }, env: s3.env });
  });

  async function killAWorker(lake: LakeSetup): Promise<void> {
    await stopAll();
    broker = await startMockBroker();
    const seeded = await seededDataDirs(5);
    const configDir = tempDir('faultline-roles-');
    const start = async (role: Role, dir: string, workerId = 'w1') => {
      const node = `${role}-${workerId}`;
      const file = join(configDir, `${node}.yaml`);
      writeFileSync(file, roleYaml(role, { s3: lake.s3 }));
      const env = { ...roleEnv(broker!.brokers, lake.dirFor(node), workerId), ...lake.env, FAULTLINE_LOG_LEVEL: 'info' };
      const proc = await startProcess(dir, ['--config', file], env);
      processes.push(proc);
      return proc;
    };
    const ingests = [await start('ingest', seeded.dirs[0]), await start('ingest', seeded.dirs[1])];
    const workers = [await start('worker', seeded.dirs[2], 'w1'), await start('worker', seeded.dirs[3], 'w2')];
    query = await startService({
      yaml: roleYaml('query', { s3: lake.s3 }),
      dataDir: seeded.dirs[4],
      keys: { live: seeded.liveKey, test: seeded.testKey },
      env: { ...roleEnv(broker.brokers, lake.dirFor('query')), ...lake.env },
      logFile: join(configDir, 'query.log'),
    });
    const auth = { authorization: `Bearer ${seeded.liveKey}`, 'content-type': 'application/json' };

    const acked = new Set<string>();
    const postEvents = (count: number) =>
      postEventsAcked(
        ingests.map((ingest) => ingest.baseUrl),
        seeded.liveKey,
        count,
        acked,
      );
    const traces: string[] = [];
    const postTrace = async (index: number) => {
      const trace = randomBytes(16).toString('hex');
      const t0 = Date.now() - 60_000;
      const spans = Array.from({ length: SPANS_PER_TRACE }, (_, i) => ({
        trace_id: trace,
        span_id: randomBytes(8).toString('hex'),
        name: `op ${i}`,
        service_name: 'checkout',
        start_time: t0 + i,
        end_time: t0 + i + 3,
      }));
      const res = await fetch(`${ingests[index % 2].baseUrl}/v1/traces`, { method: 'POST', headers: auth, body: JSON.stringify({ spans }) });
      expect(res.status).toBe(202);
      traces.push(trace);
    };

    const t0 = Date.now();
    const lap = (what: string) => console.log(`${what}: ${Date.now() - t0} ms`);
    await postEvents(EVENTS / 2);
    lap('first half of events');
    for (let t = 0; t < TRACES / 2; t++) await postTrace(t);
    // Kill the worker that is taking events (all of one project's events are in one partition).
    const accepted = async (worker: RunningProcess) => {
      const text = await (await fetch(`${worker.baseUrl}/metrics`)).text();
      return Number(/faultline_receiver_accepted_items_total\{receiver="kafka",signal="events"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    let victim: RunningProcess | undefined;
    for (let i = 0; i < 100 && !victim; i++) {
      for (const worker of workers) if ((await accepted(worker)) > 0) victim = worker;
      if (!victim) await new Promise((r) => setTimeout(r, 100));
    }
    expect(victim).toBeDefined();
    lap('victim found');
    // The rest of the load goes on while the victim dies, the group notices and the survivor takes over.
    const rest = (async () => {
      await postEvents(EVENTS / 2);
      for (let t = TRACES / 2; t < TRACES; t++) await postTrace(t);
    })();
    await new Promise((r) => setTimeout(r, 300));
    victim!.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await victim!.exited).toBe('SIGKILL');
    await rest;
    lap('all sent');
    const deadline = Math.max(Date.now(), killedAt + REBALANCE_MS) + READABLE_WITHIN_MS;
    let ids: string[];
    for (;;) {
      ids = await listEventIds(query, seeded.projectId).catch((error: unknown) => {
        throw new Error(`${String(error)} (log: ${configDir}/query.log)`);
      });
      const read = new Set(ids);
      if ([...acked].every((id) => read.has(id)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    lap('events readable');
    if (ids.length < acked.size) for (const p of processes) console.log(p.output().slice(-3000));
    expect([...acked].filter((id) => !ids.includes(id))).toEqual([]); // every acknowledged event is readable
    expect(ids.length).toBe(new Set(ids).size); // no duplicates in reads
    expect(new Set(ids)).toEqual(acked);
    expect(acked.size).toBe(EVENTS);
    for (const trace of traces) expect(await spanCountBy((path) => query!.api(path), trace, SPANS_PER_TRACE, deadline)).toBe(SPANS_PER_TRACE);
    lap('spans readable');
  }
});
