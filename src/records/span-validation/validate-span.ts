// Checks one span of /v1/traces or OTLP and turns it into the Span record. Hand-written rather
// than a schema library: it runs once per span on the ingest hot path, where a schema library
// would be the top cost, and it needs bigint times.
import type { FieldError } from '../../engine/item.js';
import { describeType } from '../json-type.js';
import {
  SPAN_KINDS,
  SPAN_STATUSES,
  type AttributeValue,
  type Attributes,
  type InstrumentationScope,
  type Span,
  type SpanEvent,
  type SpanKind,
  type SpanLink,
  type SpanStatus,
} from '../span.js';
import { toNanos } from './times.js';

export interface SpanLimits {
  max_span_attributes: number;
  max_span_events: number;
  max_span_links: number;
  max_attribute_value_length: number;
}

/** The limits when none are configured (the validation processor's defaults). */
export const SPAN_LIMIT_DEFAULTS: SpanLimits = { max_span_attributes: 128, max_span_events: 128, max_span_links: 128, max_attribute_value_length: 4096 };

export type SpanValidation = { ok: true; span: Omit<Span, 'project_id' | 'received_at'> } | { ok: false; errors: FieldError[] };

const ID = /^[0-9A-Za-z_-]{1,64}$/;
const HEX = /^[0-9a-fA-F]+$/;

/**
 * The errors of the span being checked. validateSpan runs to its end without yielding and nothing
 * it calls validates another span, so one list serves every call: a per-call list and the
 * closures that fill it were a third of what validation allocated per span.
 */
const found: FieldError[] = [];
const fail: Fail = (path, message) => {
  found.push({ path, message });
};

function idAt(input: Record<string, unknown>, key: string, required: boolean): string {
  const value = input[key];
  if (value === undefined || value === null || value === '') {
    if (required) fail(key, 'is required');
    return '';
  }
  if (typeof value !== 'string') return (fail(key, `expected a string, got ${describeType(value)}`), '');
  if (!ID.test(value)) return (fail(key, 'must be 1-64 characters of [0-9A-Za-z_-]'), '');
  return lowerHex(value);
}

const UPPER_HEX = /[A-F]/;

/** Hex ids in lower case; toLowerCase copies the string even when nothing changes, so only when something does. */
function lowerHex(id: string): string {
  return HEX.test(id) && UPPER_HEX.test(id) ? id.toLowerCase() : id;
}

function textAt(input: Record<string, unknown>, key: string, required: boolean, max: number): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) {
    if (required) fail(key, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') return (fail(key, `expected a string, got ${describeType(value)}`), undefined);
  if (required && value === '') return (fail(key, 'must not be empty'), undefined);
  return value.length > max ? value.slice(0, max) : value;
}

function timeAt(input: Record<string, unknown>, key: string): bigint | undefined {
  if (input[key] === undefined || input[key] === null) return (fail(key, 'is required'), undefined);
  const nanos = toNanos(input[key]);
  return typeof nanos === 'string' ? (fail(key, nanos), undefined) : nanos;
}

function oneOf<T extends string>(input: Record<string, unknown>, key: string, allowed: readonly T[], fallback: T): T {
  const value = input[key];
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T; // as decoded OTLP gives it
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value.toLowerCase())) return value.toLowerCase() as T;
  fail(key, `expected one of ${allowed.join(', ')}, got ${typeof value === 'string' ? JSON.stringify(value) : describeType(value)}`);
  return fallback;
}

export function validateSpan(raw: unknown, limits: SpanLimits): SpanValidation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, errors: [{ path: '', message: `expected a span object, got ${describeType(raw)}` }] };
  const input = raw as Record<string, unknown>;
  found.length = 0;
  const maxText = limits.max_attribute_value_length;

  const trace_id = idAt(input, 'trace_id', true);
  const span_id = idAt(input, 'span_id', true);
  const parent_span_id = idAt(input, 'parent_span_id', false);
  const name = textAt(input, 'name', true, maxText);
  const start = timeAt(input, 'start_time');
  const end = timeAt(input, 'end_time');
  if (start !== undefined && end !== undefined && end < start) fail('end_time', 'must not be before start_time');
  const status: SpanStatus = oneOf(input, 'status', SPAN_STATUSES, 'unset');
  const kind: SpanKind = oneOf(input, 'kind', SPAN_KINDS, 'unspecified');
  const status_message = textAt(input, 'status_message', false, maxText);
  const trace_state = textAt(input, 'trace_state', false, maxText);
  const attributes = attributesAt(input.attributes, 'attributes', limits, fail);
  const resource_attributes = resourceAttributesAt(input.resource_attributes, limits, fail);
  const serviceFromResource = typeof resource_attributes['service.name'] === 'string' ? resource_attributes['service.name'] : undefined;
  const service_name = textAt(input, 'service_name', false, maxText) || serviceFromResource || 'unknown_service';
  const scope = sharedScopeAt(input.scope, limits);
  const events = listAt(input.events, 'events', limits.max_span_events, limits, eventAt);
  const links = listAt(input.links, 'links', limits.max_span_links, limits, linkAt);

  if (found.length || name === undefined || start === undefined || end === undefined) return { ok: false, errors: found.slice() };
  // Optional fields are set only when present, by assignment: spreading conditional objects into
  // the literal cost more than the rest of the record.
  const span: Omit<Span, 'project_id' | 'received_at'> = {
    trace_id,
    span_id,
    parent_span_id,
    name,
    service_name,
    start_time_unix_nano: start,
    end_time_unix_nano: end,
    status,
    kind,
    attributes,
    resource_attributes,
    events,
    links,
  };
  if (status_message) span.status_message = status_message;
  if (trace_state) span.trace_state = trace_state;
  if (scope) span.scope = scope;
  return { ok: true, span };
}

type Fail = (path: string, message: string) => void;

/**
 * The OTLP decoders hand every span of a resource the same resource_attributes object: checked
 * once, the result is shared by the spans that follow (a valid result only; nothing mutates it).
 * Checking 11 resource attributes again for each of 512 spans was a fifth of the validation.
 */
let lastResource: { input: object; limits: SpanLimits; output: Attributes } | undefined;

function resourceAttributesAt(value: unknown, limits: SpanLimits, fail: Fail): Attributes {
  if (lastResource && lastResource.input === value && lastResource.limits === limits) return lastResource.output;
  let failed = false;
  const output = attributesAt(value, 'resource_attributes', limits, (path, message) => ((failed = true), fail(path, message)));
  if (!failed && typeof value === 'object' && value !== null) lastResource = { input: value, limits, output };
  return output;
}

function attributesAt(value: unknown, path: string, limits: SpanLimits, fail: Fail): Attributes {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return (fail(path, `expected an object, got ${describeType(value)}`), {});
  const input = value as Record<string, unknown>;
  const keys = Object.keys(input);
  // Nearly always every value is already what the record holds: the object is kept, not copied.
  if (keys.length <= limits.max_span_attributes && keptAsIs(input, keys, limits.max_attribute_value_length)) return input as Attributes;
  const out: Attributes = {};
  const count = Math.min(keys.length, limits.max_span_attributes); // like the SDKs: extra attributes are dropped
  for (let i = 0; i < count; i++) {
    const key = keys[i];
    const checked = attributeValue(input[key], path, key, limits, fail, 0);
    if (checked !== undefined) out[key] = checked;
  }
  return out;
}

/**
 * Whether every value is a string within the length limit, a finite number, a boolean or null:
 * what attributeValue returns unchanged. Arrays, maps and the rest take the copying path, and so
 * does the key __proto__, which the copy's plain assignment drops.
 */
function keptAsIs(input: Record<string, unknown>, keys: string[], maxLength: number): boolean {
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] === '__proto__') return false;
    const value = input[keys[i]];
    if (typeof value === 'string') {
      if (value.length > maxLength) return false;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
    } else if (typeof value !== 'boolean' && value !== null) return false;
  }
  return true;
}

/** A value's path, built only when it is needed (an error, a nested value): not for every value. */
function pathOf(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}[${key}]` : `${parent}.${key}`;
}

function attributeValue(value: unknown, parent: string, key: string | number, limits: SpanLimits, fail: Fail, depth: number): AttributeValue | undefined {
  if (typeof value === 'string') return value.length > limits.max_attribute_value_length ? value.slice(0, limits.max_attribute_value_length) : value;
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : (fail(pathOf(parent, key), 'must be a finite number'), undefined);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) {
    const path = pathOf(parent, key);
    const out: AttributeValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) return (fail(pathOf(path, i), 'array items must be strings, numbers or booleans'), undefined);
      const checked = attributeValue(item, path, i, limits, fail, depth + 1);
      if (checked !== undefined) out.push(checked);
    }
    return out;
  }
  if (typeof value === 'object' && depth < 8) {
    // OTLP kvlist values: nested maps of the same kinds of values.
    const path = pathOf(parent, key);
    const out: Record<string, AttributeValue> = {};
    for (const [name, item] of Object.entries(value)) {
      const checked = attributeValue(item, path, name, limits, fail, depth + 1);
      if (checked !== undefined) out[name] = checked;
    }
    return out;
  }
  fail(pathOf(parent, key), `expected a string, number, boolean or an array of those, got ${describeType(value)}`);
  return undefined;
}

function listAt<T>(
  value: unknown,
  path: string,
  max: number,
  limits: SpanLimits,
  item: (value: unknown, path: string, limits: SpanLimits, fail: Fail) => T | undefined,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return (fail(path, `expected an array, got ${describeType(value)}`), []);
  if (value.length === 0) return value as T[]; // the span's own empty list, kept rather than copied
  const out: T[] = [];
  const count = Math.min(value.length, max);
  for (let i = 0; i < count; i++) {
    const checked = item(value[i], `${path}[${i}]`, limits, fail);
    if (checked !== undefined) out.push(checked);
  }
  return out;
}

function eventAt(value: unknown, path: string, limits: SpanLimits, fail: Fail): SpanEvent | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return (fail(path, `expected an object, got ${describeType(value)}`), undefined);
  const event = value as Record<string, unknown>;
  if (typeof event.name !== 'string') return (fail(`${path}.name`, 'is required'), undefined);
  const time = toNanos(event.time ?? event.time_unix_nano);
  if (typeof time === 'string') return (fail(`${path}.time`, time), undefined);
  return { name: event.name, time_unix_nano: time, attributes: attributesAt(event.attributes, `${path}.attributes`, limits, fail) };
}

function linkAt(value: unknown, path: string, limits: SpanLimits, fail: Fail): SpanLink | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return (fail(path, `expected an object, got ${describeType(value)}`), undefined);
  const link = value as Record<string, unknown>;
  const ids: Record<'trace_id' | 'span_id', string> = { trace_id: '', span_id: '' };
  for (const key of ['trace_id', 'span_id'] as const) {
    const id = link[key];
    if (typeof id !== 'string' || !ID.test(id)) return (fail(`${path}.${key}`, 'must be 1-64 characters of [0-9A-Za-z_-]'), undefined);
    ids[key] = lowerHex(id);
  }
  return {
    ...ids,
    ...(typeof link.trace_state === 'string' && link.trace_state ? { trace_state: link.trace_state } : {}),
    attributes: attributesAt(link.attributes, `${path}.attributes`, limits, fail),
  };
}

/** Like the resource's: the spans of one OTLP ScopeSpans share its scope object, checked once. */
let lastScope: { input: object; limits: SpanLimits; output: InstrumentationScope | undefined } | undefined;

function sharedScopeAt(value: unknown, limits: SpanLimits): InstrumentationScope | undefined {
  if (lastScope && lastScope.input === value && lastScope.limits === limits) return lastScope.output;
  const before = found.length;
  const output = scopeAt(value, limits, fail);
  if (found.length === before && typeof value === 'object' && value !== null) lastScope = { input: value, limits, output };
  return output;
}

function scopeAt(value: unknown, limits: SpanLimits, fail: Fail): InstrumentationScope | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return (fail('scope', `expected an object, got ${describeType(value)}`), undefined);
  const scope = value as Record<string, unknown>;
  if (typeof scope.name !== 'string') return (fail('scope.name', 'is required'), undefined);
  return {
    name: scope.name,
    ...(typeof scope.version === 'string' && scope.version ? { version: scope.version } : {}),
    ...(scope.attributes ? { attributes: attributesAt(scope.attributes, 'scope.attributes', limits, fail) } : {}),
  };
}
