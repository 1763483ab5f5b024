// Data directories seeded from one catalog, for nodes that share a control plane.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startService, tempDir } from './service.js';

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
