// A receiver's batch: items made from what it took in, and once consumed, what to tell the sender
// — `{accepted, rejected, errors}` — from the outcomes the pipelines set (partial success, as
// OTLP and POST /v1/traces answer).
import type { Consumer } from './component.js';
import type { FieldError, Item, Tenant } from './item.js';

export interface BatchResult {
  /** Items every pipeline took (an item dropped by a processor is neither accepted nor rejected). */
  accepted: number;
  rejected: number;
  /** One entry per problem, `index` being the item's position in the batch. */
  errors: Array<{ index: number } & FieldError>;
}

/** Items for the records of one tenant, each charged `size` bytes against the pipelines' budgets. */
export function itemsOf(data: readonly unknown[], tenant: Tenant, size: number, receivedAt = Date.now()): Item[] {
  return data.map((record) => ({ data: record, tenant, receivedAt, size }));
}

export function batchResult(items: readonly Item[]): BatchResult {
  const result: BatchResult = { accepted: 0, rejected: 0, errors: [] };
  items.forEach((item, index) => {
    const outcome = item.outcome;
    if (outcome?.kind === 'rejected') {
      result.rejected++;
      for (const detail of outcome.details.length ? outcome.details : [{ path: '', message: outcome.message }]) result.errors.push({ index, ...detail });
    } else if (outcome === undefined) result.accepted++;
  });
  return result;
}

/** Consumes the records as one batch and tells what became of them. */
export async function consumeBatch(consumer: Consumer, data: readonly unknown[], tenant: Tenant, size: number): Promise<BatchResult> {
  const items = itemsOf(data, tenant, size);
  await consumer.consume(items);
  return batchResult(items);
}

/** Adds the result of another part of the same request to `total`. */
export function addBatchResult(total: BatchResult, part: BatchResult): BatchResult {
  total.accepted += part.accepted;
  total.rejected += part.rejected;
  total.errors.push(...part.errors);
  return total;
}
