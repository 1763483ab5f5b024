// What both span receivers (/v1/traces and OTLP) do with a batch: one item per span into the
// traces pipelines, then the `exception` events of the accepted spans as error events into the
// events pipelines, linked by trace id. Event ids derive from the span, so a re-sent batch stores
// nothing twice.
import type { Consumer } from '../engine/component.js';
import type { FieldError, Item, Signal, Tenant } from '../engine/item.js';
import { exceptionEventsFromSpan } from '../records/span-exceptions.js';
import type { Span } from '../records/span.js';

export interface SpanBatchResult {
  accepted: number;
  rejected: number;
  /** One entry per problem, `index` being the span's position in the batch. */
  errors: Array<{ index: number } & FieldError>;
}

export async function ingestSpans(
  consumers: Partial<Record<Signal, Consumer>>,
  tenant: Tenant,
  spans: unknown[],
  receivedAt = Date.now(),
): Promise<SpanBatchResult> {
  const traces = consumers.traces;
  if (!traces) throw new Error('no traces pipeline takes spans from this receiver');
  const items: Item[] = spans.map((data) => ({ data, tenant, receivedAt, size: 512 }));
  await traces.consume(items);

  const result: SpanBatchResult = { accepted: 0, rejected: 0, errors: [] };
  const exceptions: Item[] = [];
  items.forEach((item, index) => {
    const outcome = item.outcome;
    if (outcome?.kind === 'rejected') {
      result.rejected++;
      for (const detail of outcome.details.length ? outcome.details : [{ path: '', message: outcome.message }])
        result.errors.push({ index, ...detail });
      return;
    }
    if (outcome?.kind === 'dropped') return;
    result.accepted++;
    const span = item.data as Span;
    if (consumers.events && span.events.some((e) => e.name === 'exception'))
      for (const event of exceptionEventsFromSpan(span)) exceptions.push({ data: event, tenant, receivedAt, size: 2048 });
  });
  if (exceptions.length && consumers.events) await consumers.events.consume(exceptions);
  return result;
}
