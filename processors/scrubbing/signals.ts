// What the scrubber walks in each signal's record: the fields that carry what senders put in
// (Relay's `pii=true` fields), not identifiers, times or stack frames' file and function names.
import type { ErrorEvent } from '../../src/records/event.js';
import type { Span } from '../../src/records/span.js';
import type { Scrubber } from './scrubber.js';

const EVENT_FIELDS = ['message', 'user', 'tags', 'breadcrumbs', 'contexts', 'request'] as const;

/** Scrubs an event in place and records what changed in its `scrubbed` list. */
export function scrubEvent(event: ErrorEvent, scrubber: Scrubber): void {
  scrubber.begin();
  for (const field of EVENT_FIELDS) scrubber.field(event, field);
  scrubException(event.exception, scrubber);
  const scrubbed = scrubber.scrubbed();
  if (scrubbed.length) event.scrubbed = scrubbed;
}

function scrubException(exception: ErrorEvent['exception'] | undefined, scrubber: Scrubber): void {
  if (exception) scrubber.within('exception', () => scrubCause(exception, scrubber));
}

function scrubCause(exception: ErrorEvent['exception'] | undefined, scrubber: Scrubber): void {
  if (!exception) return;
  scrubber.field(exception, 'value');
  scrubber.field(exception, 'mechanism');
  if (exception.cause) scrubber.within('cause', () => scrubCause(exception.cause, scrubber));
}

/** The span attribute that lists what was scrubbed, as `<rule> <path>` strings. */
export const SPAN_SCRUBBED_ATTRIBUTE = 'faultline.scrubbed';

/**
 * Resource attribute objects a scrubber walked without changing anything. The spans of one OTLP
 * resource share its attributes object, and a walk that changed nothing would find nothing the
 * next time either (the same options, path and values), so it is walked once per batch of spans.
 */
export type CleanResources = WeakMap<object, Scrubber>;

/** Scrubs a span in place; what changed is listed in its `faultline.scrubbed` attribute. */
export function scrubSpan(span: Span, scrubber: Scrubber, clean?: CleanResources): void {
  scrubber.begin();
  scrubber.field(span, 'name');
  scrubber.field(span, 'status_message');
  scrubber.field(span, 'attributes');
  const resource = span.resource_attributes;
  if (clean?.get(resource) !== scrubber) {
    const changes = scrubber.changes;
    scrubber.field(span, 'resource_attributes');
    if (clean && scrubber.changes === changes && span.resource_attributes === resource) clean.set(resource, scrubber);
  }
  // Most spans have neither: no closures made for them.
  if (span.events.length) span.events.forEach((event, i) => scrubber.within('events', () => scrubber.within(i, () => scrubber.field(event, 'attributes'))));
  if (span.links.length) span.links.forEach((link, i) => scrubber.within('links', () => scrubber.within(i, () => scrubber.field(link, 'attributes'))));
  const scrubbed = scrubber.scrubbed();
  if (scrubbed.length) span.attributes[SPAN_SCRUBBED_ATTRIBUTE] = scrubbed.map((s) => `${s.rule} ${s.path}`);
}
