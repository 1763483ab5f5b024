// Kafka test support: the mock broker (mock-broker.ts) and data directories seeded from one catalog.
import { roleEnv, roleYaml } from './kafka-roles.js';
import { seededDataDirs } from './seeded-dirs.js';
import { startService, tempDir, type TestService } from './service.js';

export { startMockBroker, type MockBroker } from './mock-broker.js';
export { seededDataDirs };

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
