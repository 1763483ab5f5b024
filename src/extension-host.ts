// A host with some extensions running and no pipelines: what the CLI needs when it works on a data
// directory with the service down (src/admin/client.ts), and what tests and benchmarks build their
// components on (test/support/test-host.ts). The extensions asked for run with their default
// config, together with everything they depend on, in dependency order.
import { resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import { loadServiceSection, type ServiceSettings } from './config/service-schema.js';
import type { Extension } from './engine/extension.js';
import { ExtensionSet, orderExtensions, type ExtensionSpec } from './engine/extensions.js';
import type { Host } from './engine/host.js';
import type { Registry } from './engine/registry.js';
import { Metrics } from './telemetry/metrics.js';

export interface ExtensionHost {
  host: Host;
  /** Built-in extensions (the HTTP server, …) can be added here after start. */
  builtIn: Map<string, Extension>;
  close(): Promise<void>;
}

/** The service section's defaults with `data_dir` set, and the paths resolved as the service resolves them. */
export function defaultSettings(dataDir: string, section: Record<string, unknown> = {}): ServiceSettings {
  const loaded = loadServiceSection({ ...section, data_dir: dataDir }, {});
  if (!loaded.settings) throw new Error(`invalid service settings: ${loaded.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return resolveSettings(loaded.settings);
}

/** Absolute data directory, lake and artifacts paths under it, and an app URL without a trailing slash. */
export function resolveSettings(settings: ServiceSettings): ServiceSettings {
  const dataDir = resolve(settings.data_dir);
  return {
    ...settings,
    data_dir: dataDir,
    artifacts: { path: resolve(dataDir, settings.artifacts.path || 'artifacts') },
    app_url: settings.app_url.replace(/\/+$/, ''),
  };
}

/** The types asked for and, transitively, every type they depend on (unknown types are an error). */
export function withDependencies(registry: Registry, types: readonly string[]): ExtensionSpec[] {
  const specs = new Map<string, ExtensionSpec>();
  const add = (type: string, neededBy?: string) => {
    if (specs.has(type)) return;
    const factory = registry.extension(type);
    if (!factory) throw new Error(`unknown extension type "${type}"${neededBy ? ` (needed by ${neededBy})` : ''}`);
    specs.set(type, { id: { type, text: type }, factory, config: factory.defaultConfig() });
    for (const dependency of factory.dependencies ?? []) add(dependency, type);
  };
  for (const type of types) add(type);
  return orderExtensions([...specs.values()]).ordered;
}

export async function startExtensionHost(options: {
  registry: Registry;
  types: readonly string[];
  settings: ServiceSettings;
  logger?: Logger;
  metrics?: Metrics;
}): Promise<ExtensionHost> {
  const extensions = new ExtensionSet();
  const builtIn = new Map<string, Extension>();
  const host: Host = {
    logger: options.logger ?? pino({ level: 'silent' }),
    metrics: options.metrics ?? new Metrics(),
    settings: options.settings,
    extension: (id) => builtIn.get(id) ?? extensions.get(id),
  };
  await extensions.start(withDependencies(options.registry, options.types), host);
  return { host, builtIn, close: () => extensions.shutdown() };
}
