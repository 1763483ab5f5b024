// The post-pass over an event the schema accepted: normalize ids and times, apply the size caps
// and discard unknown fields, noting every change on the event. Paths in notes refer to the body
// as received (a frame keeps its original index after the stack trace was trimmed).
import { normalizeUuid, uuidv7 } from '../../src/records/uuid.js';
import type { Breadcrumb, DebugImage, DebugMeta, ErrorEventInput, ExceptionInfo, ProcessingError, StackFrame } from '../../src/records/event.js';
import type { ValidationConfig } from './config.js';
import { joinPath } from '../../src/records/zod-issues.js';
import {
  breadcrumbSchema,
  debugImageSchema,
  debugMetaSchema,
  errorEventInputSchema,
  exceptionSchema,
  requestSchema,
  sdkSchema,
  stackFrameSchema,
  userSchema,
  type ParsedEvent,
} from '../../src/records/event-schema.js';
import { normalizeTimestamp } from '../../src/records/timestamp.js';

type JsonObject = Record<string, unknown>;

/** Notes are stored with the event: a body full of unknown fields must not make it huge. */
const MAX_NOTES = 100;

const keysOf = (schema: { shape: object }) => new Set(Object.keys(schema.shape));
const KNOWN = {
  event: keysOf(errorEventInputSchema),
  exception: keysOf(exceptionSchema),
  frame: keysOf(stackFrameSchema),
  user: keysOf(userSchema),
  breadcrumb: keysOf(breadcrumbSchema),
  request: keysOf(requestSchema),
  sdk: keysOf(sdkSchema),
  debugMeta: keysOf(debugMetaSchema),
};
/** The fields of each known image type (debugImageSchema picks the schema by type). */
const imageKeys = new Map<object, Set<string>>();
function knownImageKeys(schema: { shape: object }): Set<string> {
  let keys = imageKeys.get(schema);
  if (!keys) imageKeys.set(schema, (keys = keysOf(schema)));
  return keys;
}

const EVENT_STRINGS = ['environment', 'release', 'platform'];
const MESSAGE = ['message'];
const EXCEPTION_STRINGS = ['type', 'module'];
const EXCEPTION_VALUE = ['value'];
const FRAME_STRINGS = ['filename', 'abs_path', 'module', 'function', 'platform', 'context_line'];
const USER_STRINGS = ['id', 'email', 'username', 'ip_address'];
const BREADCRUMB_STRINGS = ['type', 'category', 'message'];
const REQUEST_STRINGS = ['url', 'method', 'query_string'];
const SDK_STRINGS = ['name', 'version'];

const HEX = /^[0-9a-fA-F]+$/;

/** The path of the item `index` of the list at `base`, or `base` itself without an index. */
function itemPath(base: string, index: number | undefined): string {
  return index === undefined ? base : `${base}[${index}]`;
}

/** Cuts at `max` UTF-16 units without splitting a surrogate pair. */
function truncate(value: string, max: number): string {
  const code = value.charCodeAt(max - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * `rewritten`: whether the event differs from the body beyond its id and timestamp: the post-pass
 * changed a value of the schema's output (a cap, a trimmed list, a case or format normalized, an
 * image rebuilt differently) or discarded an unknown field. When it did not, the event is the
 * schema's output of the body plus its id and timestamp, and the body holds nothing the event
 * does not, which is what lets the duckdb exporter store the body as received
 * (src/records/event-body.ts).
 *
 * `parsed` may be made of `raw`'s own objects (a body validateEvent owns), and the event is made of
 * `parsed`'s, changed in place: each node of `raw` is read (its keys, a tag's type) before its
 * counterpart in the event is written to.
 */
export function normalizeEvent(
  parsed: ParsedEvent,
  raw: JsonObject,
  config: ValidationConfig,
): { event: ErrorEventInput; notes: ProcessingError[]; rewritten: boolean } {
  const pass = new PostPass(config);
  const event = pass.event(parsed, raw);
  return { event, notes: pass.finish(), rewritten: pass.rewritten };
}

class PostPass {
  private readonly notes: ProcessingError[] = [];
  private omitted = 0;
  rewritten = false;

  constructor(private readonly config: ValidationConfig) {}

  event(parsed: ParsedEvent, raw: JsonObject): ErrorEventInput {
    const { config } = this;
    this.unknownFields(raw, KNOWN.event, '');
    const debugMeta = parsed.debug_meta;
    // The schema's output becomes the event; only an id the body lacks needs a new object (ids come first).
    const event = eventOf(parsed.id === undefined ? { id: '', ...parsed } : parsed);
    event.id = parsed.id === undefined ? uuidv7() : normalizeUuid(parsed.id);
    event.timestamp = normalizeTimestamp(parsed.timestamp);
    this.capFields(event, EVENT_STRINGS, config.max_string_length, '');
    this.capFields(event, MESSAGE, config.max_message_length, '');

    this.exceptionChain(event.exception, raw.exception as JsonObject);

    if (event.user) {
      this.unknownFields(raw.user as JsonObject, KNOWN.user, 'user');
      this.capFields(event.user, USER_STRINGS, config.max_string_length, 'user');
    }
    if (event.tags) event.tags = this.tags(event.tags, raw.tags as JsonObject);
    if (event.trace_id && HEX.test(event.trace_id)) event.trace_id = this.changed(event.trace_id, event.trace_id.toLowerCase());
    if (event.breadcrumbs) event.breadcrumbs = this.breadcrumbs(event.breadcrumbs, raw.breadcrumbs as unknown[]);
    if (event.request) {
      this.unknownFields(raw.request as JsonObject, KNOWN.request, 'request');
      this.capFields(event.request, REQUEST_STRINGS, config.max_string_length, 'request');
      if (event.request.headers) this.capFields(event.request.headers, null, config.max_string_length, 'request.headers');
    }
    if (event.fingerprint) event.fingerprint = this.fingerprint(event.fingerprint);
    if (event.sdk) {
      this.unknownFields(raw.sdk as JsonObject, KNOWN.sdk, 'sdk');
      this.capFields(event.sdk, SDK_STRINGS, config.max_string_length, 'sdk');
    }
    if (debugMeta) event.debug_meta = this.debugMeta(debugMeta.images, raw.debug_meta as JsonObject);
    return event;
  }

  /** `after`, noting whether it differs from `before`. */
  private changed<T>(before: T, after: T): T {
    if (after !== before) this.rewritten = true;
    return after;
  }

  finish(): ProcessingError[] {
    if (this.omitted > 0) {
      this.notes.push({ type: 'notes_truncated', message: `${this.omitted} further notes omitted` });
    }
    return this.notes;
  }

  private note(type: string, path: string, message: string): void {
    if (this.notes.length < MAX_NOTES) this.notes.push({ type, path, message });
    else this.omitted++;
  }

  /** `index`: `raw` is the item of that index in the list at `base` (its path is built only for a note). */
  private unknownFields(raw: JsonObject, known: Set<string>, base: string, index?: number): void {
    for (const key in raw) {
      if (known.has(key)) continue;
      this.rewritten = true; // what was discarded must not be stored with the body
      this.note('unknown_field', joinPath(itemPath(base, index), key), 'unknown field, discarded');
    }
  }

  /** `key` completes the path; paths are only built for the rare value that is cut. */
  private cap(value: string, max: number, base: string, key?: string | number): string {
    if (value.length <= max) return value;
    this.rewritten = true;
    const cut = truncate(value, max);
    const path = key === undefined ? base : joinPath(base, key);
    this.note('value_too_long', path, `truncated from ${value.length} to ${cut.length} characters`);
    return cut;
  }

  /** Caps the string fields `keys` of `target` in place (all of its fields when keys is null); `index` as for unknownFields. */
  private capFields(target: object, keys: readonly string[] | null, max: number, base: string, index?: number): void {
    const fields = target as JsonObject;
    for (const key of keys ?? Object.keys(fields)) {
      const value = fields[key];
      if (typeof value === 'string' && value.length > max) fields[key] = this.cap(value, max, itemPath(base, index), key);
    }
  }

  /** Caps the strings of `values` in place; `path` is built only when one is cut. */
  private capList(values: string[], max: number, path: () => string): string[] {
    for (let i = 0; i < values.length; i++) if (values[i].length > max) values[i] = this.cap(values[i], max, path(), i);
    return values;
  }

  /** Keeps the last `max` entries; returns them with the offset of the first kept one. */
  private keepLast<T>(list: T[], max: number, path: string, type: string, what: string): [T[], number] {
    if (list.length <= max) return [list, 0];
    this.rewritten = true;
    this.note(type, path, `kept the last ${max} of ${list.length} ${what}`);
    return [list.slice(list.length - max), list.length - max];
  }

  /**
   * The exception and the chain of its causes. A chain longer than max_exception_chain keeps its
   * outermost exceptions and its root cause: the one raised and the one that started it matter most.
   */
  private exceptionChain(exception: ExceptionInfo, raw: JsonObject): void {
    const { config } = this;
    let path = 'exception';
    let current: ExceptionInfo | undefined = exception;
    let rawCurrent = raw;
    for (let depth = 1; current !== undefined; depth++) {
      this.unknownFields(rawCurrent, KNOWN.exception, path);
      this.capFields(current, EXCEPTION_STRINGS, config.max_string_length, path);
      this.capFields(current, EXCEPTION_VALUE, config.max_exception_value_length, path);
      if (current.stacktrace) current.stacktrace = this.frames(current.stacktrace, rawCurrent.stacktrace as unknown[], `${path}.stacktrace`);
      if (current.cause !== undefined && depth === config.max_exception_chain - 1) {
        const [root, rawRoot, dropped] = rootCauseOf(current.cause, rawCurrent.cause as JsonObject);
        if (dropped > 0) {
          this.rewritten = true;
          this.note('chain_truncated', `${path}.cause`, `kept the outermost ${depth} exceptions and the root cause, dropped ${dropped} between`);
          current.cause = root;
          rawCurrent.cause = rawRoot;
        }
      }
      current = current.cause;
      rawCurrent = rawCurrent.cause as JsonObject;
      path += '.cause';
    }
  }

  /** The innermost frames are the last ones, and the ones that matter for grouping. */
  private frames(frames: StackFrame[], raw: unknown[], base: string): StackFrame[] {
    const max = this.config.max_string_length;
    const [kept, skipped] = this.keepLast(frames, this.config.max_frames, base, 'frames_truncated', 'frames');
    kept.forEach((frame, i) => {
      const index = i + skipped;
      this.unknownFields(raw[index] as JsonObject, KNOWN.frame, base, index);
      this.capFields(frame, FRAME_STRINGS, max, base, index);
      if (frame.pre_context) this.capList(frame.pre_context, max, () => `${base}[${index}].pre_context`);
      if (frame.post_context) this.capList(frame.post_context, max, () => `${base}[${index}].post_context`);
      if (frame.debug_id !== undefined) frame.debug_id = this.changed(frame.debug_id, normalizeUuid(frame.debug_id));
      if (frame.instruction_addr !== undefined) frame.instruction_addr = this.changed(frame.instruction_addr, frame.instruction_addr.toLowerCase());
    });
    return kept;
  }

  /**
   * Keeps the images of the types symbolication knows (sourcemap, proguard, elf, macho, pe; the
   * schema has checked their fields), with only their own fields and their ids and addresses in
   * lower case; an image of any other type is discarded with a note.
   */
  private debugMeta(images: JsonObject[], raw: JsonObject): DebugMeta {
    this.unknownFields(raw, KNOWN.debugMeta, 'debug_meta');
    const kept: DebugImage[] = [];
    images.forEach((image, i) => {
      const path = `debug_meta.images[${i}]`;
      const type = image.type as string;
      const schema = debugImageSchema(type);
      if (!schema) {
        this.rewritten = true;
        this.note('unsupported_image', path, `image type ${JSON.stringify(truncate(type, 40))} is not one symbolication uses, discarded`);
        return;
      }
      const known = knownImageKeys(schema);
      this.unknownFields(image, known, path);
      const out: JsonObject = {};
      for (const key of known) if (image[key] !== undefined) out[key] = image[key];
      for (const key of ['debug_id', 'image_addr']) if (typeof out[key] === 'string') out[key] = (out[key] as string).toLowerCase();
      if (typeof out.uuid === 'string') out.uuid = normalizeUuid(out.uuid);
      if (type === 'sourcemap') out.debug_id = normalizeUuid(out.debug_id as string);
      this.capFields(out, ['code_file'], this.config.max_string_length, path);
      if (!sameFields(out, image)) this.rewritten = true;
      kept.push(out as unknown as DebugImage);
    });
    return { images: kept };
  }

  private breadcrumbs(breadcrumbs: Breadcrumb[], raw: unknown[]): Breadcrumb[] {
    const { max_breadcrumbs } = this.config;
    const [kept, skipped] = this.keepLast(breadcrumbs, max_breadcrumbs, 'breadcrumbs', 'breadcrumbs_truncated', 'breadcrumbs');
    kept.forEach((breadcrumb, i) => {
      const index = i + skipped;
      this.unknownFields(raw[index] as JsonObject, KNOWN.breadcrumb, 'breadcrumbs', index);
      if (breadcrumb.timestamp !== undefined) breadcrumb.timestamp = this.changed(breadcrumb.timestamp, normalizeTimestamp(breadcrumb.timestamp));
      this.capFields(breadcrumb, BREADCRUMB_STRINGS, this.config.max_string_length, 'breadcrumbs', index);
    });
    return kept;
  }

  /** `raw`: the tags as sent, where numbers and booleans are still what they were. */
  private tags(tags: Record<string, string>, raw: JsonObject): Record<string, string> {
    const { max_tags, max_tag_key_length, max_tag_value_length } = this.config;
    // The tags as they are until one changes; from then on the ones kept, made into a new object.
    let kept: [string, string][] | undefined;
    let count = 0;
    let dropped = 0;
    let index = -1;
    for (const key in tags) {
      index++;
      const value = tags[key];
      let keep: string | undefined;
      if (key === '' || key.length > max_tag_key_length) {
        this.rewritten = true;
        const shown = JSON.stringify(truncate(key, 40) + (key.length > 40 ? '…' : ''));
        const why = key === '' ? 'is empty' : `is longer than ${max_tag_key_length} characters`;
        this.note('invalid_tag', 'tags', `tag key ${shown} ${why}, tag discarded`);
      } else if (count === max_tags) {
        dropped++;
      } else {
        const sent = raw[key];
        if (typeof sent !== 'string')
          this.note('tag_value_converted', joinPath('tags', key), `${typeof sent} ${String(sent)} stored as the string ${JSON.stringify(value)}`);
        keep = this.cap(value, max_tag_value_length, 'tags', key);
        count++;
      }
      if (kept === undefined && keep !== value) kept = Object.entries(tags).slice(0, index);
      if (kept !== undefined && keep !== undefined) kept.push([key, keep]);
    }
    if (dropped > 0) {
      this.rewritten = true;
      this.note('tags_truncated', 'tags', `kept the first ${max_tags} tags, discarded ${dropped}`);
    }
    return kept === undefined ? tags : Object.fromEntries(kept);
  }

  private fingerprint(parts: string[]): string[] {
    const max = this.config.max_fingerprint_parts;
    if (parts.length > max) {
      this.rewritten = true;
      this.note('fingerprint_truncated', 'fingerprint', `kept the first ${max} of ${parts.length} parts`);
      parts = parts.slice(0, max);
    }
    return this.capList(parts, this.config.max_string_length, () => 'fingerprint');
  }
}

/** The schema's output as the event it becomes (its debug_meta is replaced by the checked images). */
function eventOf(parsed: ParsedEvent): ErrorEventInput {
  return parsed as Omit<ParsedEvent, 'debug_meta'> as ErrorEventInput;
}

/** Whether `a` has the fields of `b`, in the same order, with the same values (JSON leaves). */
function sameFields(a: JsonObject, b: JsonObject): boolean {
  const keys = Object.keys(a);
  const other = Object.keys(b);
  return keys.length === other.length && keys.every((key, i) => key === other[i] && a[key] === b[key]);
}

/** The innermost exception of a chain, its raw form, and how many exceptions lie before it. */
function rootCauseOf(exception: ExceptionInfo, raw: JsonObject): [ExceptionInfo, JsonObject, number] {
  let dropped = 0;
  while (exception.cause !== undefined) {
    exception = exception.cause;
    raw = raw.cause as JsonObject;
    dropped++;
  }
  return [exception, raw, dropped];
}
