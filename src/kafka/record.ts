// The Kafka record encoding `faultline_json`, version 1: what the kafka exporter writes and the
// kafka receiver reads (receivers/kafka/README.md documents it for other producers and consumers).
//
//   key      the project id (UTF-8): one project's items keep their order in one partition
//   headers  faultline-schema: "1", faultline-signal: "events" | "traces" | "replays"
//   value    UTF-8 JSON {"schema": 1, "signal", "tenant": {"org_id", "project_id", "dataset"},
//                        "received_at": <epoch ms>, "record": <the validated record>}
//
// Integers the records keep as bigint (span times in nanoseconds) are decimal strings in JSON and
// become bigints again when read, per signal (REVIVERS): a signal whose record has such fields
// adds its reviver here, and nothing else changes.
import type { Item, Signal, Tenant } from '../engine/item.js';
import { SIGNALS } from '../engine/item.js';
import type { Span } from '../records/span.js';

export const RECORD_SCHEMA_VERSION = 1;
export const HEADER_SCHEMA = 'faultline-schema';
export const HEADER_SIGNAL = 'faultline-signal';

export interface EncodedRecord {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

export interface DecodedRecord {
  signal: Signal;
  tenant: Tenant;
  receivedAt: number;
  record: unknown;
}

export class RecordDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordDecodeError';
  }
}

/** Makes the JSON-parsed record of a signal the in-memory record again (bigints). */
const REVIVERS: Partial<Record<Signal, (record: Record<string, unknown>) => unknown>> = {
  traces: (record) => {
    const span = record as unknown as Span & Record<string, unknown>;
    span.start_time_unix_nano = toBigInt(record.start_time_unix_nano, 'record.start_time_unix_nano');
    span.end_time_unix_nano = toBigInt(record.end_time_unix_nano, 'record.end_time_unix_nano');
    if (!Array.isArray(span.events)) throw new RecordDecodeError('record.events: expected an array');
    span.events.forEach((event, index) => (event.time_unix_nano = toBigInt(event.time_unix_nano, `record.events[${index}].time_unix_nano`)));
    return span;
  },
};

function toBigInt(value: unknown, path: string): bigint {
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new RecordDecodeError(`${path}: expected an integer as a decimal string`);
}

const replacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

export function encodeRecord(signal: Signal, item: Item): EncodedRecord {
  const { tenant } = item;
  const body = {
    schema: RECORD_SCHEMA_VERSION,
    signal,
    tenant: { org_id: tenant.orgId, project_id: tenant.projectId, dataset: tenant.dataset },
    received_at: item.receivedAt,
    record: item.data,
  };
  return {
    key: tenant.projectId,
    value: Buffer.from(JSON.stringify(body, replacer), 'utf8'),
    headers: { [HEADER_SCHEMA]: String(RECORD_SCHEMA_VERSION), [HEADER_SIGNAL]: signal },
  };
}

/** Reads one `faultline_json` value; throws RecordDecodeError on anything that is not version 1 of the format. */
export function decodeRecord(value: Buffer | null): DecodedRecord {
  if (!value || value.length === 0) throw new RecordDecodeError('empty message');
  let body: unknown;
  try {
    body = JSON.parse(value.toString('utf8'));
  } catch {
    throw new RecordDecodeError('not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RecordDecodeError('expected a JSON object');
  const { schema, signal, tenant, received_at: receivedAt, record } = body as Record<string, unknown>;
  if (schema !== RECORD_SCHEMA_VERSION)
    throw new RecordDecodeError(`schema ${JSON.stringify(schema)} is not supported (this build reads ${RECORD_SCHEMA_VERSION})`);
  if (typeof signal !== 'string' || !(SIGNALS as readonly string[]).includes(signal)) throw new RecordDecodeError(`unknown signal ${JSON.stringify(signal)}`);
  if (typeof tenant !== 'object' || tenant === null) throw new RecordDecodeError('tenant: expected an object');
  const { org_id: orgId, project_id: projectId, dataset } = tenant as Record<string, unknown>;
  if (typeof orgId !== 'string' || typeof projectId !== 'string' || (dataset !== 'live' && dataset !== 'test'))
    throw new RecordDecodeError('tenant: expected {org_id, project_id, dataset: "live" | "test"}');
  if (typeof receivedAt !== 'number' || !Number.isFinite(receivedAt)) throw new RecordDecodeError('received_at: expected epoch milliseconds');
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new RecordDecodeError('record: expected an object');
  const revive = REVIVERS[signal as Signal];
  return {
    signal: signal as Signal,
    tenant: { orgId, projectId, dataset },
    receivedAt,
    record: revive ? revive(record as Record<string, unknown>) : record,
  };
}
