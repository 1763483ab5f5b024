import type { FieldError } from '../../src/engine/item.js';
import type { ErrorEventInput, ProcessingError } from '../../src/records/event.js';
import type { ValidationConfig } from './config.js';
import { describeType } from '../../src/records/json-type.js';
import { apiErrorMap, toFieldErrors } from '../../src/records/zod-issues.js';
import { tooDeep } from './depth.js';
import { normalizeEvent } from './normalize.js';
import { errorEventInputSchema, type ParsedEvent } from '../../src/records/event-schema.js';
import { compileAccept, UNSURE } from './compiled.js';

export { parseRelease } from './release.js';

export type EventValidation = { ok: true; event: ErrorEventInput; notes: ProcessingError[]; rewritten: boolean } | { ok: false; errors: FieldError[] };

const acceptEvent = compileAccept(errorEventInputSchema);
/** The same path, its output sharing the body's own objects wherever they are what zod would output. */
const acceptEventReusing = compileAccept(errorEventInputSchema, { reuse: true });

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a parsed ingest body. Rejects with every problem found (path '' is the body itself);
 * accepts with the normalized event, an id assigned when it had none, and notes on what was
 * truncated or discarded. `owned`: the body is the caller's own freshly parsed JSON, which the
 * event may then share and change (the body's objects are taken as they are wherever the schema
 * would output them unchanged); otherwise the event is built anew and the body left alone.
 */
export function validateEvent(raw: unknown, config: ValidationConfig, owned = false): EventValidation {
  if (!isJsonObject(raw)) {
    return { ok: false, errors: [{ path: '', message: `expected a JSON object, got ${describeType(raw)}` }] };
  }
  const deep = tooDeep(raw, config.max_depth);
  if (deep !== undefined) return { ok: false, errors: [{ path: deep, message: `nested deeper than ${config.max_depth} levels` }] };
  // The compiled accept-path first (a fraction of zod's cost); zod decides whatever it is unsure of.
  const accepted = (owned ? acceptEventReusing : acceptEvent)?.(raw);
  if (accepted !== undefined && accepted !== UNSURE) return { ok: true, ...normalizeEvent(accepted as ParsedEvent, raw, config) };
  const parsed = errorEventInputSchema.safeParse(raw, { error: apiErrorMap });
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error.issues) };
  return { ok: true, ...normalizeEvent(parsed.data, raw, config) };
}
