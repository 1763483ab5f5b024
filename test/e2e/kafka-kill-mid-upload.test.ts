// Issue #31: a worker process killed with SIGKILL while its upload to the lake's bucket is in
// flight, and never restarted. Two workers (`faultline start --config` of the example worker role,
// each with a lake directory of its own) reach the bucket (s3rver on loopback) through a proxy
// that holds the first upload of an events file unanswered (test/support/s3-proxy.ts), so the
// kill lands mid-upload every time: once a single PUT of the file, once the completion of a
// multipart upload whose part is already stored. The survivor takes the partition over at the
// rebalance and re-reads what the victim never committed; a query node started afterwards, on an
// empty cache, reads every acknowledged event exactly once within 60 s, and no partial object is
// ever in the bucket: the held key does not exist, and every object listed is a whole Parquet file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parquetConfigSchema } from '../../exporters/parquet/config.js';
import { S3LakeStore } from '../../exporters/parquet/s3-store.js';
import { startMockBroker, seededDataDirs, type MockBroker } from '../support/kafka.js';
import { listEventIds, postEventsAcked, roleEnv, roleYaml } from '../support/kafka-roles.js';
import { startProcess, type RunningProcess } from '../support/process.js';
import { startS3, type LoopbackS3 } from '../support/s3.js';
import { startS3Proxy, type S3Proxy, type S3Request } from '../support/s3-proxy.js';
import { startService, tempDir, type TestService } from '../support/service.js';

const EVENTS = 400;
/** How long after the rebalance every acknowledged event must be readable. */
const READABLE_WITHIN_MS = 60_000;
/** The test workers' session timeout (test/support/kafka-roles.ts) plus the mock's rebalance. */
const REBALANCE_MS = 5000;
/** A flush's events file (not a compaction's): `part-<writer>-<batch>-<i>.parquet`; the writer's id is captured. */
const FLUSHED_EVENTS = /\/events\/project_id=[^/]+\/date=[^/]+\/part-(w\d)-\d+-\d+\.parquet$/;

describe('a worker killed mid-upload to the S3 lake and never restarted', () => {
  let s3: LoopbackS3 | undefined;
  let broker: MockBroker | undefined;
  let proxy: S3Proxy | undefined;
  let workers: RunningProcess[] = [];
  let nodes: TestService[] = [];
  afterEach(async () => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    workers = [];
    for (const node of nodes) await node.stop();
    nodes = [];
    await proxy?.stop();
    await broker?.stop();
    broker = undefined;
  });
  afterAll(async () => {
    await s3?.stop();
  });

  it('during a single PUT: the survivor re-reads what was not committed, every acknowledged event is read once', { timeout: 180_000 }, async () => {
    await killMidUpload('single-put', (request) => request.method === 'PUT' && !request.query.has('uploadId') && FLUSHED_EVENTS.test(request.path));
  });

  it(
    'during a multipart upload (its part stored, its completion in flight): nothing is listed, every acknowledged event is read once',
    { timeout: 180_000 },
    async () => {
      const held = await killMidUpload(
        'multipart',
        (request) => request.method === 'POST' && request.query.has('uploadId') && FLUSHED_EVENTS.test(request.path),
        {
          multipart_bytes: 1,
        },
      );
      // The upload had begun for real: s3rver stored its part, and was never asked to complete it.
      const upload = held.query.get('uploadId');
      const forUpload = proxy!.forwarded.filter((request) => request.query.get('uploadId') === upload);
      expect(forUpload.map((request) => `${request.method} ${request.status}`)).toEqual(['PUT 200']);
    },
  );

  /** Runs the roles with the proxy holding the upload `hold` picks, kills its sender, checks the reads; returns the held request. */
  async function killMidUpload(prefix: string, hold: (request: S3Request) => boolean, s3Extra: Record<string, unknown> = {}) {
    s3 ??= await startS3();
    broker = await startMockBroker();
    proxy = await startS3Proxy(s3.endpoint, hold);
    const direct = { ...s3.lakeConfig(prefix), refresh_ms: 300 };
    const seeded = await seededDataDirs(4);
    const keys = { live: seeded.liveKey, test: seeded.testKey };
    const configDir = tempDir('faultline-kill-mid-upload-');
    const ingest = await startService({
      yaml: roleYaml('ingest'),
      dataDir: seeded.dirs[0],
      keys,
      env: roleEnv(broker.brokers, join(configDir, 'ingest-lake')),
    });
    nodes.push(ingest);
    const startWorker = async (workerId: string, dataDir: string) => {
      const file = join(configDir, `worker-${workerId}.yaml`);
      writeFileSync(file, roleYaml('worker', { s3: { ...direct, ...s3Extra, endpoint: proxy!.endpoint } }));
      const env = { ...roleEnv(broker!.brokers, join(configDir, `${workerId}-lake`), workerId), ...s3!.env, FAULTLINE_LOG_LEVEL: 'info' };
      const worker = await startProcess(dataDir, ['--config', file], env);
      workers.push(worker);
      return worker;
    };
    const byId = { w1: await startWorker('w1', seeded.dirs[1]), w2: await startWorker('w2', seeded.dirs[2]) };

    const acked = new Set<string>();
    const postEvents = (count: number) => postEventsAcked([ingest.baseUrl], seeded.liveKey, count, acked);

    await postEvents(EVENTS / 2);
    const held = await Promise.race([
      proxy.held,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no upload was held\n${workers.map((w) => w.output().slice(-2000)).join('\n')}`)), 45_000),
      ),
    ]);
    const victimId = FLUSHED_EVENTS.exec(held.path)![1] as 'w1' | 'w2';
    const victim = byId[victimId];
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await victim.exited).toBe('SIGKILL');
    await held.closed; // the upload died with its process
    await postEvents(EVENTS / 2);

    const query = await startService({
      yaml: roleYaml('query', { s3: direct }),
      dataDir: seeded.dirs[3],
      keys,
      env: { ...roleEnv(broker.brokers, join(configDir, 'query-lake')), ...s3.env },
    });
    nodes.push(query);
    const deadline = Math.max(Date.now(), killedAt + REBALANCE_MS) + READABLE_WITHIN_MS;
    let ids: string[] = [];
    while (Date.now() < deadline) {
      ids = await listEventIds(query, seeded.projectId);
      if ([...acked].every((id) => ids.includes(id))) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (ids.length < acked.size) for (const worker of workers) console.log(worker.output().slice(-3000));
    expect(acked.size).toBe(EVENTS);
    expect([...acked].filter((id) => !ids.includes(id))).toEqual([]); // every acknowledged event is readable
    expect(ids.length).toBe(new Set(ids).size); // once
    expect(new Set(ids)).toEqual(acked);

    // Nothing partial in the bucket: the held key was never stored, and every object is a whole Parquet file.
    const store = new S3LakeStore(parquetConfigSchema.parse({ s3: direct }).s3!);
    try {
      const heldKey = held.path.slice(`/${s3.bucket}/${prefix}/`.length);
      expect(await store.get(heldKey)).toBeUndefined();
      const objects = await store.list('events/');
      expect(objects.map((object) => object.key)).not.toContain(heldKey);
      expect(objects.some((object) => object.key.includes(`part-${victimId === 'w1' ? 'w2' : 'w1'}-`))).toBe(true); // the survivor wrote them
      let rows = 0;
      for (const object of objects) {
        const bytes = (await store.get(object.key))!;
        expect(bytes.length).toBe(object.size);
        rows += Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).num_rows);
      }
      expect(rows).toBeGreaterThanOrEqual(EVENTS);
    } finally {
      store.close();
    }
    return held;
  }
});
