import { reject, type Item } from '../../src/engine/item.js';
import type { Processor } from '../../src/engine/component.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { ValidationConfig } from './config.js';
import { parseRelease } from './release.js';
import { RetentionWindow } from '../../src/records/retention-window.js';
import { validateEvent } from './validate.js';
import { attachReceivedBody, receivedBodyOf } from '../../src/records/event-body.js';

/** Turns raw ingest bodies into ErrorEvent records, or rejects them with field-level details. */
export class EventValidationProcessor implements Processor {
  private readonly retention?: RetentionWindow;

  /** `retentionDays`: service.retention.events_days; older events are rejected (none when undefined). */
  constructor(
    private readonly config: ValidationConfig,
    retentionDays?: number,
  ) {
    if (retentionDays !== undefined) this.retention = new RetentionWindow('events', retentionDays);
  }

  process(items: Item[]): void {
    for (const item of items) {
      // A body POST /v1/events parsed is the item's own: the event is made of its objects. A body a
      // receiver mapped is kept as it is, to be stored as the body (event-body.ts).
      const body = receivedBodyOf(item.data);
      const result = validateEvent(item.data, this.config, body !== undefined && 'bytes' in body);
      if (!result.ok) {
        reject(item, 'the event is invalid', result.errors);
        continue;
      }
      const releaseInfo = parseRelease(result.event.release);
      const notes = item.notes ? [...item.notes, ...result.notes] : result.notes;
      let timestamp = result.event.timestamp;
      const expired = this.retention?.expired(Date.parse(timestamp), item.receivedAt);
      if (expired) {
        reject(item, 'the event is invalid', [{ path: 'timestamp', message: expired }]);
        continue;
      }
      if (Date.parse(timestamp) > item.receivedAt + this.config.max_future_skew_seconds * 1000) {
        // A clock far ahead would pin the event to the top of every list; Sentry clamps the same way.
        notes.push({ type: 'future_timestamp', path: 'timestamp', message: `was ${timestamp}, in the future; set to the time of receipt` });
        timestamp = new Date(item.receivedAt).toISOString();
      }
      // The pipeline's fields go onto the validated event itself (no copy), after its own: the
      // order its JSON keeps. It is an ErrorEvent once processing_errors is set, four lines down.
      const event = result.event as ErrorEvent;
      event.timestamp = timestamp;
      event.project_id = item.tenant.projectId;
      event.received_at = new Date(item.receivedAt).toISOString();
      if (releaseInfo) event.release_info = releaseInfo;
      event.processing_errors = notes;
      // The event may be the parsed body itself, which carries its bytes: a rewritten event must not.
      if (body !== undefined) attachReceivedBody(event, result.rewritten ? undefined : body);
      item.data = event;
    }
  }
}
