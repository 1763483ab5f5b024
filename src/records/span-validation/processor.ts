import type { Processor } from '../../engine/component.js';
import { reject, type Item } from '../../engine/item.js';
import { nanosToMillis } from '../nanos.js';
import type { Span } from '../span.js';
import { RetentionWindow } from '../retention-window.js';
import { validateSpan, type SpanLimits } from './validate-span.js';

/** Turns span inputs (/v1/traces JSON or decoded OTLP) into Span records, or rejects them per span. */
export class SpanValidationProcessor implements Processor {
  private readonly retention?: RetentionWindow;

  /** `retentionDays`: service.retention.traces_days; spans that start earlier are rejected (none when undefined). */
  constructor(
    private readonly config: SpanLimits,
    retentionDays?: number,
  ) {
    if (retentionDays !== undefined) this.retention = new RetentionWindow('traces', retentionDays);
  }

  process(items: Item[]): void {
    let lastReceivedAt = NaN;
    let lastReceivedIso = '';
    for (const item of items) {
      const result = validateSpan(item.data, this.config);
      if (!result.ok) {
        reject(item, 'the span is invalid', result.errors);
        continue;
      }
      // The retention job deletes spans by start time.
      const expired = this.retention?.expired(nanosToMillis(result.span.start_time_unix_nano), item.receivedAt);
      if (expired) {
        reject(item, 'the span is invalid', [{ path: 'start_time', message: expired }]);
        continue;
      }
      // Completed in place rather than copied (a spread per span); the spans of one request share
      // their time of receipt, so its ISO form is made once.
      const span = result.span as Span;
      span.project_id = item.tenant.projectId;
      if (item.receivedAt !== lastReceivedAt) [lastReceivedAt, lastReceivedIso] = [item.receivedAt, new Date(item.receivedAt).toISOString()];
      span.received_at = lastReceivedIso;
      item.data = span;
    }
  }
}
