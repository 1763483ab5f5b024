// Taking a request's items in: room in the pipelines' in-flight budget is reserved before the body
// is read and held until its items are durable, so that however many uploads arrive together,
// what they take in memory while being read, parsed and processed stays within the budget.
import type { H3Event } from 'h3';
import type { Consumer } from '../engine/component.js';
import { ExportError, OverloadedError, ShuttingDownError } from '../engine/errors.js';
import { reserve } from '../engine/fanout.js';
import { ClientAbortError, declaredLength, readBody, type BodyOptions } from './body.js';
import type { Item, Tenant } from '../engine/item.js';
import { ApiError, errors, type ErrorCode } from './errors.js';

/**
 * Memory a request takes per byte of its body while it is handled: the body, its text, the parsed
 * values (several times the JSON they came from: objects, short strings) and the record made of
 * them. Measured on a 200 KB event of many small objects: 4.5 times its size in heap, plus the
 * body; long strings take less. The budget's bytes count this estimate, not the bytes on the wire.
 */
export const MEMORY_PER_BODY_BYTE = 4;
/** What a body of unknown length (chunked) reserves until its bytes arrive. */
const UNKNOWN_LENGTH = 64 * 1024;

/**
 * Reserves room for the request in `consumer`'s pipelines (its declared length, or 64 KiB when it
 * has none, times MEMORY_PER_BODY_BYTE, growing as the bytes and then the inflated bytes arrive),
 * reads the body within `options`' limit and time, and hands it to `use` with a consumer that takes
 * its items against the reservation. The reservation is given back when `use` settles.
 * Throws OverloadedError (503 + Retry-After) before reading anything when the pipelines are full,
 * and when a body outgrows the room left while it arrives.
 */
export async function withReservedBody<T>(
  event: H3Event,
  consumer: Consumer,
  options: BodyOptions,
  use: (body: Buffer, consumer: Consumer) => Promise<T>,
): Promise<T> {
  const declared = declaredLength(event);
  if (declared > options.limit) throw errors.tooLarge(options.limit); // a 413 needs no room
  const reservation = reserve(consumer, 1, (Number.isNaN(declared) ? UNKNOWN_LENGTH : declared) * MEMORY_PER_BODY_BYTE);
  try {
    const body = await readBody(event, { ...options, onSize: (bytes) => reservation.growTo(bytes * MEMORY_PER_BODY_BYTE) });
    return await use(body, reservation.consumer);
  } finally {
    reservation.release();
  }
}

export type RefusalReason = 'invalid' | 'too_large' | 'overloaded' | 'unauthorized' | 'timeout' | 'client_abort' | 'failed';

/**
 * The `reason` label of faultline_receiver_refused_items_total for a refusal: an engine or body
 * error, or anything that carries the HTTP status it is answered with (ApiError, OTLP failures).
 */
export function refusalReason(error: unknown): RefusalReason {
  if (error instanceof OverloadedError || error instanceof ShuttingDownError) return 'overloaded';
  if (error instanceof ClientAbortError) return 'client_abort';
  if (error instanceof ExportError) return 'failed';
  const status = (error as { status?: unknown } | null)?.status;
  switch (status) {
    case 401:
      return 'unauthorized';
    case 408:
      return 'timeout';
    case 413:
      return 'too_large';
    case 499:
      return 'client_abort';
    case 503:
      return 'overloaded';
    default:
      return typeof status === 'number' && status < 500 ? 'invalid' : 'failed';
  }
}

export interface TakeOneOptions extends BodyOptions {
  /** Whose item it is: known before the body is read, or decided from the parsed data. */
  tenant: Tenant | ((data: unknown) => Promise<Tenant>);
  /** The item's size before its body is read (the declared length, or a guess). */
  size: number;
  /** Checks made before any room is reserved (content type): a refusal here costs nothing. */
  check?: () => void;
  /** The item's data from the body. */
  parse: (body: Buffer) => unknown;
  /** Counts a refusal (faultline_receiver_refused_items_total). */
  refused: (reason: RefusalReason) => void;
}

/**
 * One item of a request into `consumer`'s pipelines: checked, its room reserved, its body read and
 * parsed, and consumed — it returns once the item is durable, or dropped by a processor. A
 * refusal is counted and thrown; an item a processor rejected is the 400 of its problems.
 */
const NO_TENANT: Tenant = { orgId: '', projectId: '', dataset: 'live' };

export async function takeOne(event: H3Event, consumer: Consumer, options: TakeOneOptions): Promise<Item> {
  const { tenant } = options;
  const item: Item = { data: undefined, tenant: typeof tenant === 'function' ? NO_TENANT : tenant, receivedAt: 0, size: options.size };
  try {
    options.check?.();
    await withReservedBody(event, consumer, { limit: options.limit, timeoutMs: options.timeoutMs }, async (body, reserved) => {
      item.data = await options.parse(body);
      if (typeof tenant === 'function') item.tenant = await tenant(item.data);
      item.receivedAt = Date.now();
      await reserved.consume([item]);
    });
  } catch (error) {
    options.refused(refusalReason(error));
    throw error;
  }
  const outcome = item.outcome;
  if (outcome?.kind === 'rejected') {
    options.refused('invalid');
    throw new ApiError(400, outcome.code as ErrorCode, outcome.message, outcome.details);
  }
  return item;
}
