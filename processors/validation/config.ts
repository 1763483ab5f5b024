import { z } from 'zod';

const limit = (fallback: number) => z.int().min(1).default(fallback);

/** Size caps. Values past a cap are truncated or trimmed, with a note on the event; only nesting past max_depth is rejected. */
export const validationConfigSchema = z
  .object({
    max_message_length: limit(8192),
    max_exception_value_length: limit(8192),
    /** Every other string field of the event. */
    max_string_length: limit(1024),
    max_tag_key_length: limit(200),
    max_tag_value_length: limit(200),
    max_tags: limit(100),
    max_frames: limit(250),
    max_breadcrumbs: limit(100),
    max_fingerprint_parts: limit(50),
    /** Deepest nesting of objects and arrays accepted (deeper bodies are rejected, not truncated). */
    max_depth: limit(64),
    /** A timestamp further than this in the future is set to the time of receipt (clock skew). */
    max_future_skew_seconds: limit(300),
    /** Spans: attributes past this many are dropped (as the OpenTelemetry SDKs do). */
    max_span_attributes: limit(128),
    max_span_events: limit(128),
    max_span_links: limit(128),
    /** Spans: longer attribute strings (and names) are truncated. */
    max_attribute_value_length: limit(4096),
  })
  .strict();

export type ValidationConfig = z.infer<typeof validationConfigSchema>;
