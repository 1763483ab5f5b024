// Kafka test support: the mock broker (mock-broker.ts) and data directories seeded from one catalog.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { roleEnv, roleYaml } from './kafka-roles.js';
import { startService, tempDir, type TestService } from './service.js';

export { startMockBroker, type MockBroker } from './mock-broker.js';

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

/** An ingest, a worker and a query node (in this process) on one broker and lake, and `spare` more seeded data directories. */
export async function startRoleNodes(
  brokers: string,
  spare = 0,
): Promise<{ ingest: TestService; worker: TestService; query: TestService; seeded: Awaited<ReturnType<typeof seededDataDirs>>; env: Record<string, string> }> {
  const seeded = await seededDataDirs(3 + spare);
  const keys = { live: seeded.liveKey, test: seeded.testKey };
  const env = roleEnv(brokers, tempDir('faultline-shared-lake-'));
  const ingest = await startService({ yaml: roleYaml('ingest'), dataDir: seeded.dirs[0], keys, env });
  const worker = await startService({ yaml: roleYaml('worker'), dataDir: seeded.dirs[1], keys, env });
  const query = await startService({ yaml: roleYaml('query'), dataDir: seeded.dirs[2], keys, env });
  return { ingest, worker, query, seeded, env };
}
