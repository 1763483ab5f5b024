import { z } from 'zod';
import { SPAN_LIMIT_DEFAULTS } from '../../src/records/span-validation/validate-span.js';

const limit = (fallback: number) => z.int().min(1).default(fallback);

/** Size caps. Values past a cap are truncated or trimmed, with a note on the event; only nesting past max_depth is rejected. */
export const validationConfigSchema = z
  .object({
    max_message_length: limit(8192).describe('Longer `message` is truncated'),
    max_exception_value_length: limit(8192).describe('Longer `exception.value` is truncated'),
    max_string_length: limit(1024).describe('Any other string field longer than this is truncated (free-form objects excepted)'),
    max_tag_key_length: limit(200).describe('A tag whose key is longer is discarded (an empty key too)'),
    max_tag_value_length: limit(200).describe('Longer tag values are truncated'),
    max_tags: limit(100).describe('Tags past this many are discarded'),
    max_frames: limit(250).describe('Keeps the innermost (last) frames of a longer stack trace'),
    max_exception_chain: z
      .int()
      .min(2)
      .default(10)
      .describe('Keeps this many exceptions of an `exception.cause` chain: the outermost ones and the root cause (the innermost), dropping those between'),
    max_breadcrumbs: limit(100).describe('Keeps the newest (last) breadcrumbs'),
    max_fingerprint_parts: limit(50).describe('Keeps the first parts of a longer `fingerprint`'),
    max_depth: limit(64).describe('Deepest nesting of objects and arrays accepted: deeper bodies are rejected, not truncated'),
    max_future_skew_seconds: limit(300).describe('A timestamp further than this in the future is set to the time of receipt (clock skew)'),
    max_span_attributes: limit(SPAN_LIMIT_DEFAULTS.max_span_attributes).describe(
      'Spans: attributes past this many are dropped, per map (span, resource, event, link), as the OpenTelemetry SDKs do',
    ),
    max_span_events: limit(SPAN_LIMIT_DEFAULTS.max_span_events).describe('Spans: events past this many are dropped'),
    max_span_links: limit(SPAN_LIMIT_DEFAULTS.max_span_links).describe('Spans: links past this many are dropped'),
    max_attribute_value_length: limit(SPAN_LIMIT_DEFAULTS.max_attribute_value_length).describe('Spans: longer attribute strings (and names) are truncated'),
  })
  .strict();

export type ValidationConfig = z.infer<typeof validationConfigSchema>;
