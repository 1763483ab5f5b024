// The `service` section: a convict schema, so every key has a type, a default and, where useful,
// an environment override (env beats the YAML file).
import convict from 'convict';
import { SIGNALS, type Signal } from '../engine/item.js';
import { unknownKeyMessage } from './suggest.js';

const MiB = 1024 * 1024;

const schema = {
  data_dir: { doc: 'Where the DuckDB database and the lake live', format: String, default: './data', env: 'FAULTLINE_DATA_DIR' },
  app_url: {
    doc: 'Public URL of this service, used in permalinks',
    format: String,
    default: 'http://localhost:8080',
    env: 'FAULTLINE_APP_URL',
  },
  log_level: {
    doc: 'Log level',
    format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    env: 'FAULTLINE_LOG_LEVEL',
  },
  http: {
    host: { doc: 'Address of the HTTP API', format: String, default: '127.0.0.1', env: 'FAULTLINE_HTTP_HOST' },
    port: { doc: 'Port of the HTTP API (0 = any free port)', format: 'port', default: 8080, env: 'FAULTLINE_HTTP_PORT' },
  },
  // Deprecated: component keys that lived here. Accepted for one release; the component that took
  // each over (its factory's `defaults`) reads it, and resolve.ts warns with the new key.
  otlp: {
    host: { doc: 'Deprecated: receivers.otlp.host', format: optionalString, nullable: true, default: null },
    port: { doc: 'Deprecated: receivers.otlp.port', format: optionalPort, nullable: true, default: null },
  },
  lake: {
    path: { doc: 'Deprecated: the path of each parquet exporter', format: optionalString, nullable: true, default: null },
  },
  artifacts: {
    path: {
      doc: 'Where uploaded source maps and symbol files are kept (one file per content); empty: <data_dir>/artifacts; a relative path is taken relative to data_dir',
      format: String,
      default: '',
      env: 'FAULTLINE_ARTIFACTS_DIR',
    },
  },
  control_plane: {
    brokers: {
      doc: 'Kafka bootstrap brokers (host:port, comma-separated) of the shared control plane: keys, projects and issue statuses replicate to every node through a compacted topic; empty: this node keeps its catalog to itself',
      format: String,
      default: '',
      env: 'FAULTLINE_CONTROL_PLANE_BROKERS',
    },
    topic: { doc: 'The compacted topic of the control plane', format: String, default: 'faultline.catalog' },
  },
  storage: Object.fromEntries(
    SIGNALS.map((signal) => [
      signal,
      {
        doc:
          `The exporters ${signal} reads come from: a list of exporter ids, or one string of comma-separated ids ` +
          `(\`both\` is a deprecated alias of \`duckdb, parquet\`). Default: the first exporter of the ${signal} pipelines that serves reads`,
        format: exporterIdList,
        nullable: true,
        default: null,
        env: storageEnv(signal),
      },
    ]),
  ),
  auth: {
    bootstrap: {
      doc: 'On a fresh data directory, create a default organization, project and one live and one test key',
      format: Boolean,
      default: true,
    },
  },
  web: {
    max_form_bytes: {
      doc: 'Largest web form body (sign-in and every signed-in form); past it 413, read no further',
      format: 'nat',
      default: 64 * 1024,
    },
    trust_proxy: {
      doc: "Behind one reverse proxy: take the client's address (sign-in limits) from the last X-Forwarded-For entry instead of the socket",
      format: Boolean,
      default: false,
      env: 'FAULTLINE_TRUST_PROXY',
    },
  },
  limits: {
    event_body_bytes: { doc: 'Deprecated: receivers.http_api.max_event_bytes', format: optionalCount, nullable: true, default: null },
    span_batch_bytes: { doc: 'Largest span batch (/v1/traces, OTLP), after decompression', format: 'nat', default: 10 * MiB },
    spans_per_request: { doc: 'Most spans in one request', format: 'nat', default: 10_000 },
    replay_chunk_bytes: {
      doc: 'Largest replay chunk (POST /v1/replays), on the wire and again after decompression (of the body or of its base64 `data`)',
      format: 'nat',
      default: 10 * MiB,
    },
    sourcemap_upload_bytes: {
      doc: 'Largest source-map upload (POST /v1/sourcemaps), on the wire and again after decompression',
      format: 'nat',
      default: 100 * MiB,
    },
    body_timeout_ms: {
      doc: 'Longest time an ingest body (events, traces, OTLP) may take to arrive; past it 408 and the connection closes',
      format: 'nat',
      default: 30_000,
      env: 'FAULTLINE_BODY_TIMEOUT_MS',
    },
    rate_limit: {
      requests_per_second: { doc: 'Requests per second per API key; 0 turns rate limiting off', format: 'nat', default: 0 },
      burst: { doc: 'Requests a key may send at once above the steady rate', format: 'nat', default: 0 },
    },
  },
  retention: {
    events_days: { doc: 'Days events are kept (older ones are refused at ingest)', format: 'nat', default: 90, env: 'FAULTLINE_RETENTION_EVENTS_DAYS' },
    traces_days: { doc: 'Days spans are kept (older ones are refused at ingest)', format: 'nat', default: 30, env: 'FAULTLINE_RETENTION_TRACES_DAYS' },
    replays_days: {
      doc: 'Days replays are kept, counted from their last segment (older chunks are refused at ingest)',
      format: 'nat',
      default: 30,
      env: 'FAULTLINE_RETENTION_REPLAYS_DAYS',
    },
    artifacts_days: {
      doc: 'Days uploaded source-map bundles are kept, counted from their upload (0 = keep)',
      format: 'nat',
      default: 90,
      env: 'FAULTLINE_RETENTION_ARTIFACTS_DAYS',
    },
    alerts_days: {
      doc: 'Days alert firings and their deliveries are kept (a firing with a delivery still pending is kept; 0 = keep)',
      format: 'nat',
      default: 90,
    },
    check_interval_ms: { doc: 'How often expired data is deleted', format: 'nat', default: 3_600_000 },
  },
  smtp: {
    host: {
      doc: 'The SMTP server email alert actions and assignment notices go through; empty (the default): no email, and rules with an email action are refused',
      format: String,
      default: '',
      env: 'FAULTLINE_SMTP_HOST',
    },
    port: { doc: 'Its port (587 for starttls, 465 for tls, 25 for none, as a rule)', format: 'port', default: 587, env: 'FAULTLINE_SMTP_PORT' },
    tls: {
      doc: 'none: plain text (only to a relay on a trusted network); starttls: upgrade the connection, refusing a server that cannot; tls: TLS from the first byte',
      format: ['none', 'starttls', 'tls'],
      default: 'starttls',
      env: 'FAULTLINE_SMTP_TLS',
    },
    user: { doc: 'The user to authenticate as; empty: no authentication', format: String, default: '', env: 'FAULTLINE_SMTP_USER' },
    password: { doc: 'Its password (better from the environment than the file)', format: String, default: '', sensitive: true, env: 'FAULTLINE_SMTP_PASSWORD' },
    from: {
      doc: 'The From address of every message, e.g. "Faultline <faultline@example.com>"; empty: faultline@<host of app_url>',
      format: String,
      default: '',
      env: 'FAULTLINE_SMTP_FROM',
    },
  },
  shutdown_timeout_ms: { doc: 'How long a graceful shutdown may take', format: 'nat', default: 30_000 },
  pipelines: { doc: 'The pipelines: signal[/name] -> receivers, processors, exporters', format: Object, default: {} },
};

/** `service.storage.<signal>` as written: a list of exporter ids, a comma-separated string, or absent. */
export type StorageSetting = string | string[] | null;

/** The variable that overrides `service.storage.<signal>`: FAULTLINE_EVENTS_SOURCE, FAULTLINE_TRACES_SOURCE, … */
export function storageEnv(signal: Signal): string {
  return `FAULTLINE_${signal.toUpperCase()}_SOURCE`;
}

function optionalString(value: unknown): void {
  if (value !== null && typeof value !== 'string') throw new Error('must be a string');
}

function optionalPort(value: unknown): void {
  if (value !== null && !(Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535)) throw new Error('must be a port number (0-65535)');
}

function optionalCount(value: unknown): void {
  if (value !== null && !(Number.isInteger(value) && (value as number) >= 0)) throw new Error('must be a positive integer');
}

function exporterIdList(value: unknown): void {
  const ok = typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
  if (!ok) throw new Error('must be a list of exporter ids or a comma-separated string of them');
}

export type ServiceSettings = {
  data_dir: string;
  app_url: string;
  log_level: string;
  http: { host: string; port: number };
  artifacts: { path: string };
  control_plane: { brokers: string; topic: string };
  auth: { bootstrap: boolean };
  web: { max_form_bytes: number; trust_proxy: boolean };
  limits: {
    span_batch_bytes: number;
    spans_per_request: number;
    replay_chunk_bytes: number;
    sourcemap_upload_bytes: number;
    body_timeout_ms: number;
    rate_limit: { requests_per_second: number; burst: number };
  };
  retention: { events_days: number; traces_days: number; replays_days: number; artifacts_days: number; alerts_days: number; check_interval_ms: number };
  smtp: SmtpSettings;
  shutdown_timeout_ms: number;
  pipelines: Record<string, unknown>;
};

export interface SmtpSettings {
  host: string;
  port: number;
  tls: 'none' | 'starttls' | 'tls';
  user: string;
  password: string;
  from: string;
}

export interface ServiceSectionResult {
  /** Everything but `storage`, which resolve.ts checks against the configured exporters. */
  settings?: ServiceSettings;
  storage?: Record<Signal, StorageSetting>;
  errors: Array<{ path: string; message: string }>;
}

export function loadServiceSection(section: Record<string, unknown>, env: NodeJS.ProcessEnv): ServiceSectionResult {
  const config = convict(schema, { env, args: [] });
  try {
    config.load(section);
    config.validate({ allowed: 'strict' });
  } catch (error) {
    return { errors: parseConvictErrors(error) };
  }
  const { storage, ...settings } = config.getProperties() as unknown as Omit<ServiceSettings, 'storage'> & { storage: Record<Signal, StorageSetting> };
  return { settings, storage, errors: [] };
}

/** convict reports all problems in one message, a line each: `key: message`. */
function parseConvictErrors(error: unknown): Array<{ path: string; message: string }> {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const unknownKey = /^configuration param '([^']+)' not declared in the schema$/.exec(line);
      if (unknownKey) return { path: `service.${unknownKey[1]}`, message: unknownServiceKey(unknownKey[1]) };
      const colon = line.indexOf(': ');
      return colon > 0 ? { path: `service.${line.slice(0, colon)}`, message: line.slice(colon + 2) } : { path: 'service', message: line };
    });
}

/** `http.prot` → unknown key "prot"; did you mean "port"? (among the keys of service.http). */
function unknownServiceKey(dotted: string): string {
  const parts = dotted.split('.');
  const key = parts.pop() as string;
  let node: Record<string, unknown> = schema;
  for (const part of parts) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || 'default' in next) return unknownKeyMessage(key, []);
    node = next as Record<string, unknown>;
  }
  return unknownKeyMessage(key, Object.keys(node));
}
