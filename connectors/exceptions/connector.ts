// Spans in, error events out: each span event named `exception` becomes an error event (see
// src/records/span-exceptions.ts), linked to its trace, handed to the events pipelines that list
// this connector as a receiver. `export` resolves once those pipelines have made the events
// durable, so the span sender's acknowledgment covers them; an events pipeline over its budget
// makes the span batch fail with a retryable refusal (span and event ids are deterministic, so a
// retry stores nothing twice).
import type { Connector, ConnectorSettings } from '../../src/engine/component.js';
import { recordItems, type Item, type Signal } from '../../src/engine/item.js';
import { EXCEPTION_EVENT_NAME, exceptionEventsFromSpan } from './span-exceptions.js';
import type { ExceptionsConfig } from './config.js';

/** What one event made from a span is charged against the events pipelines' budgets. */
const EVENT_SIZE = 2048;

export class ExceptionsConnector implements Connector {
  constructor(private readonly settings: ConnectorSettings<ExceptionsConfig>) {}

  async export(_signal: Signal, items: Item[]): Promise<void> {
    const events: Item[] = [];
    for (const { data: span, tenant, receivedAt } of recordItems('traces', items)) {
      if (!span.events.some((event) => event.name === EXCEPTION_EVENT_NAME)) continue;
      for (const event of exceptionEventsFromSpan(span)) events.push({ data: event, tenant, receivedAt, size: EVENT_SIZE });
    }
    // What the events pipelines decide about each event (an invalid one is rejected) is theirs to
    // count; the spans were accepted either way.
    if (events.length) await this.settings.consumer.consume(events);
  }
}
