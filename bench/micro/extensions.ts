// The benchmarks' stores as the service has them: the real extensions, with their tables
// migrated, on a data directory (src/extension-host.ts), and a host components run on.
import type { Database } from '../../extensions/duckdb/index.js';
import { databaseOf } from '../../extensions/duckdb/index.js';
import { defaultRegistry } from '../../src/components.js';
import type { Host } from '../../src/engine/host.js';
import { defaultSettings, startExtensionHost } from '../../src/extension-host.js';

/** A host with the extensions of the given types (and their dependencies) running on `dir`. */
export async function benchHost(dir: string, types: readonly string[], service: Record<string, unknown> = {}): Promise<{ host: Host; close(): Promise<void> }> {
  return startExtensionHost({ registry: defaultRegistry(), types: ['duckdb', ...types], settings: defaultSettings(dir, service) });
}

/** The database of `dir` with the tables of the given extensions; closing it closes everything they hold. */
export async function benchDatabase(dir: string, types: readonly string[]): Promise<Database> {
  return databaseOf((await benchHost(dir, types)).host);
}
