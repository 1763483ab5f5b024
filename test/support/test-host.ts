// A Host for tests and benchmarks, built from the extension types a component declares: the real
// extensions (DuckDB file, catalog, …) on a temporary data directory, with the built-in ones the
// service adds (the HTTP server, the check-in relay). No casts: what a component
// looks up is what the service would give it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { authenticatorOf } from '../../extensions/catalog/index.js';
import { databaseOf, type Database } from '../../extensions/duckdb/index.js';
import { defaultRegistry } from '../../src/components.js';
import type { ServiceSettings } from '../../src/config/service-schema.js';
import type { Host } from '../../src/engine/host.js';
import { defaultSettings, startExtensionHost } from '../../src/extension-host.js';
import { HttpHost } from '../../src/http/host.js';
import { HTTP_SERVER_EXTENSION, HttpServerExtension } from '../../src/http/server-extension.js';
import { CHECKINS_EXTENSION, CheckinRelay } from '../../src/records/checkin.js';
import { Metrics as MetricsImpl, type Metrics } from '../../src/telemetry/metrics.js';
import { VERSION } from '../../src/version.js';
import { tempDir } from './service.js';

export interface TestHost {
  host: Host;
  dataDir: string;
  /** The HTTP server receivers mount routes on (with the catalog extension only: it authenticates). */
  http?: HttpHost;
  /** Stops the extensions (dependents first) and closes the HTTP server if it listened. */
  close(): Promise<void>;
}

export interface TestHostOptions {
  /** Extension types to run (their dependencies run too). Default: none. */
  extensions?: readonly string[];
  dataDir?: string;
  /** Keys of the service section, over its defaults (e.g. `{ retention: { events_days: 90 } }`). */
  service?: Record<string, unknown>;
  /** Changes the settings after they are loaded (for what the service section cannot say in tests). */
  settings?: (settings: ServiceSettings) => ServiceSettings;
  logger?: Logger;
  metrics?: Metrics;
}

export async function testHost(options: TestHostOptions = {}): Promise<TestHost> {
  const dataDir = options.dataDir ?? tempDir('faultline-host-');
  const loaded = defaultSettings(dataDir, { auth: { bootstrap: false }, ...options.service });
  const settings = options.settings ? options.settings(loaded) : loaded;
  const opened = await startExtensionHost({
    registry: defaultRegistry(),
    types: options.extensions ?? [],
    settings,
    logger: options.logger,
    metrics: options.metrics,
  });
  const { host, builtIn } = opened;
  builtIn.set(CHECKINS_EXTENSION, new CheckinRelay());
  let http: HttpHost | undefined;
  if (host.extension('catalog')) {
    http = new HttpHost({
      host: '127.0.0.1',
      port: 0,
      auth: authenticatorOf(host),
      metrics: host.metrics,
      logger: host.logger,
      rateLimit: settings.limits.rate_limit,
      version: VERSION,
    });
    builtIn.set(HTTP_SERVER_EXTENSION, new HttpServerExtension(http));
  }
  return {
    host,
    dataDir,
    http,
    close: async () => {
      await http?.close().catch(() => undefined);
      await opened.close();
    },
  };
}

/**
 * The database of a data directory with the tables of the given extensions (and their
 * dependencies) migrated, as the service's start leaves it, for tests that build stores on it
 * themselves. Closing the database is all there is to close: those extensions hold nothing else.
 */
export async function migratedDatabase(dataDir: string, extensions: readonly string[]): Promise<Database> {
  const { host } = await testHost({ dataDir, extensions: ['duckdb', ...extensions] });
  return databaseOf(host);
}

/**
 * A Host with service settings and no extensions, for components that read only settings (the
 * validation processor's retention window, the kafka receiver's): what the service would give a
 * component that declares no extension.
 */
export function settingsHost(service: Record<string, unknown>, options: { logger?: Logger; metrics?: Metrics } = {}): Host {
  return {
    logger: options.logger ?? pino({ level: 'silent' }),
    metrics: options.metrics ?? new MetricsImpl(),
    settings: defaultSettings(join(tmpdir(), 'faultline-settings-host'), service),
    extension: () => undefined,
  };
}
