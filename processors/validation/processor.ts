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
      const result = validateEvent(item.data, this.config);
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
      const event: ErrorEvent = {
        ...result.event,
        timestamp,
        project_id: item.tenant.projectId,
        received_at: new Date(item.receivedAt).toISOString(),
        ...(releaseInfo && { release_info: releaseInfo }),
        processing_errors: notes,
      };
      const body = receivedBodyOf(item.data);
      if (body !== undefined && !result.rewritten) attachReceivedBody(event, body);
      item.data = event;
    }
  }
}
