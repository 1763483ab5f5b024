import type { Processor } from '../../../src/engine/component.js';
import { reject, type Item } from '../../../src/engine/item.js';
import type { Span } from '../../../src/records/span.js';
import type { ValidationConfig } from '../config.js';
import { validateSpan } from './validate-span.js';

/** Turns span inputs (/v1/traces JSON or decoded OTLP) into Span records, or rejects them per span. */
export class SpanValidationProcessor implements Processor {
  constructor(private readonly config: ValidationConfig) {}

  process(items: Item[]): void {
    for (const item of items) {
      const result = validateSpan(item.data, this.config);
      if (!result.ok) {
        reject(item, 'the span is invalid', result.errors);
        continue;
      }
      const span: Span = { ...result.span, project_id: item.tenant.projectId, received_at: new Date(item.receivedAt).toISOString() };
      item.data = span;
    }
  }
}
