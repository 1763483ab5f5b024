// Sentry envelopes (https://develop.sentry.dev/sdk/data-model/envelopes/): a JSON header line,
// then items, each a JSON header line and a payload of `length` bytes (or, without `length`, up
// to the next newline). Read item by item: an item that cannot be read is skipped with its
// reason, and reading goes on wherever the next item can still be found.
import { errors } from '../../../src/http/errors.js';

export type JsonObject = Record<string, unknown>;

export interface EnvelopeItem {
  /** Position among the envelope's items (0-based). */
  index: number;
  type: string;
  header: JsonObject;
  payload: Buffer;
  /** The payload parsed already (the store endpoint parses its body to learn the item's type). */
  parsed?: JsonObject;
}

export interface SkippedItem {
  index: number;
  type: string | null;
  reason: string;
}

export interface Envelope {
  header: JsonObject;
  items: EnvelopeItem[];
  skipped: SkippedItem[];
}

const NEWLINE = 0x0a;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses an envelope; throws a 400 only when its header cannot be read (nothing else can be). */
export function parseEnvelope(body: Buffer): Envelope {
  let at = 0;
  const line = (): Buffer | undefined => {
    if (at >= body.length) return undefined;
    const end = body.indexOf(NEWLINE, at);
    const text = body.subarray(at, end === -1 ? body.length : end);
    at = end === -1 ? body.length : end + 1;
    return text;
  };
  const first = line();
  const header = first === undefined ? undefined : parseObject(first);
  if (!header) throw errors.invalidJson('the envelope header (its first line) is not a JSON object');
  const items: EnvelopeItem[] = [];
  const skipped: SkippedItem[] = [];
  for (let index = 0; at < body.length; index++) {
    const headerLine = line();
    if (headerLine === undefined) break;
    if (headerLine.length === 0 || (headerLine.length === 1 && headerLine[0] === 0x0d)) {
      index--; // blank lines between items (a trailing newline) are not items
      continue;
    }
    const itemHeader = parseObject(headerLine);
    if (!itemHeader) {
      // Without its header the item's length is unknown: read on from the next line.
      skipped.push({ index, type: null, reason: 'the item header is not a JSON object' });
      continue;
    }
    const type = typeof itemHeader.type === 'string' && itemHeader.type !== '' ? itemHeader.type : null;
    const length = itemHeader.length;
    let payload: Buffer;
    if (length === undefined || length === null) payload = line() ?? Buffer.alloc(0);
    else if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
      skipped.push({ index, type, reason: `the item's length must be a whole number of bytes, got ${JSON.stringify(length)}` });
      line(); // assume the payload is one line
      continue;
    } else if (at + length > body.length) {
      skipped.push({ index, type, reason: `the item declares ${length} bytes but only ${body.length - at} remain: the envelope is truncated` });
      break;
    } else {
      payload = body.subarray(at, at + length);
      at += length;
      if (at < body.length) {
        if (body[at] === NEWLINE) at++;
        else if (body[at] === 0x0d && body[at + 1] === NEWLINE) at += 2;
        else {
          skipped.push({ index, type, reason: `the item's payload is not followed by a newline after its ${length} bytes: its length is wrong` });
          // Resynchronize on the next line, which may be the next item's header.
          const end = body.indexOf(NEWLINE, at);
          at = end === -1 ? body.length : end + 1;
          continue;
        }
      }
    }
    if (type === null) {
      skipped.push({ index, type, reason: 'the item header has no type' });
      continue;
    }
    items.push({ index, type, header: itemHeader, payload });
  }
  return { header, items, skipped };
}

/** A JSON object from bytes, or undefined. */
export function parseObject(bytes: Buffer | string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Like parseObject, with the reason when it is not one. */
export function parseJsonPayload(bytes: Buffer): { ok: true; value: JsonObject } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: `the payload is not valid JSON: ${(error as Error).message}` };
  }
  return isJsonObject(value) ? { ok: true, value } : { ok: false, reason: 'the payload is not a JSON object' };
}
