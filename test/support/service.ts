// Starts the real service in-process on a loopback port with a temporary data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseConfigText, readConfigFile } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { defaultRegistry } from '../../src/components.js';
import { Service } from '../../src/service.js';

export interface TestService {
  service: Service;
  baseUrl: string;
  /** The OTLP/HTTP receiver's base URL, when the config runs one. */
  otlpUrl?: string;
  dataDir: string;
  liveKey: string;
  testKey: string;
  /** fetch against the service with the live key unless `key` is given (null: no Authorization). */
  api(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'faultline-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startService(
  options: {
    yaml?: string;
    env?: Record<string, string>;
    dataDir?: string;
    keys?: { live: string; test: string };
    keepData?: boolean;
    /** Write the service's log there, at debug level (default: no log). */
    logFile?: string;
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDir();
  const env = {
    FAULTLINE_DATA_DIR: dataDir,
    FAULTLINE_HTTP_PORT: '0',
    FAULTLINE_OTLP_PORT: '0',
    FAULTLINE_APP_URL: 'http://faultline.test',
    // Fixtures carry fixed dates: a century of retention keeps them from ageing past it
    // (items older than their signal's retention are refused). Tests of that pass their own.
    FAULTLINE_RETENTION_EVENTS_DAYS: '36500',
    FAULTLINE_RETENTION_TRACES_DAYS: '36500',
    ...options.env,
  };
  const source = options.yaml ? parseConfigText(options.yaml, 'test.yaml') : readConfigFile(undefined);
  const { config, errors } = resolveConfig(source, defaultRegistry(), env);
  if (!config) throw new Error(`invalid test config: ${JSON.stringify(errors)}`);
  const logger = options.logFile ? pino({ level: 'debug' }, pino.destination({ dest: options.logFile, sync: true, mkdir: true })) : pino({ level: 'silent' });
  const service = await Service.open(config, logger);
  const started = await service.start();
  const keys = started.bootstrap ? { live: started.bootstrap.live.secret, test: started.bootstrap.test.secret } : options.keys;
  if (!keys) throw new Error('a data directory that is not fresh needs its keys passed in');
  const baseUrl = `http://127.0.0.1:${started.httpPort}`;
  const liveKey = keys.live;
  const otlpPort = started.listeners.otlp;
  return {
    service,
    baseUrl,
    otlpUrl: otlpPort === undefined ? undefined : `http://127.0.0.1:${otlpPort}`,
    dataDir,
    liveKey,
    testKey: keys.test,
    api: (path, init = {}) => {
      const { key, ...rest } = init;
      const headers = new Headers(rest.headers);
      const bearer = key === undefined ? liveKey : key;
      if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
      // A FormData body gets its multipart type (with the boundary) from fetch.
      if (rest.body !== undefined && !(rest.body instanceof FormData) && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(baseUrl + path, { ...rest, headers });
    },
    stop: async () => {
      await service.stop();
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A valid event with every field of the spec and DESIGN.md's extras. */
export function fullEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    timestamp: new Date(Date.UTC(2026, 10, 1, 12, 0, counter % 60)).toISOString(),
    environment: 'production',
    release: 'web@1.4.2',
    level: 'error',
    message: 'checkout failed',
    platform: 'javascript',
    exception: {
      type: 'TypeError',
      value: "Cannot read properties of undefined (reading 'id')",
      stacktrace: [
        { filename: 'node_modules/react-dom/index.js', function: 'callCallback', lineno: 4164, colno: 14, in_app: false },
        { filename: 'src/pages/checkout.js', function: 'submitOrder', lineno: 88, colno: 21, in_app: true },
        { filename: 'src/lib/cart.js', function: 'totalOf', lineno: 12, colno: 7, in_app: true },
      ],
    },
    user: { id: 'user-42', email: 'ada@example.com' },
    tags: { route: '/checkout', browser: 'firefox' },
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    replay_id: 'rpl_abc123',
    breadcrumbs: [
      { timestamp: '2026-11-01T11:59:58.000Z', type: 'http', category: 'fetch', message: 'POST /api/orders', level: 'info', data: { status: 500 } },
    ],
    contexts: { browser: { name: 'Firefox', version: '131' } },
    request: { url: 'https://shop.example.com/checkout', method: 'POST', headers: { 'user-agent': 'Firefox' } },
    sdk: { name: 'faultline.javascript', version: '1.0.0' },
    ...overrides,
  };
}
