// The body of POST /v1/events: the contract between senders, the validation processor and the
// OpenAPI description. Types, required fields and formats only: size caps, unknown fields and
// normalization are the validation processor's post-pass. Transforms here are limited to
// stringifying, so that z.toJSONSchema(errorEventInputSchema, { io: 'input' }) describes the body.
import { z } from 'zod';
import { LEVELS } from './event.js';
import { describeType } from './json-type.js';
import { STORABLE_RANGE } from './nanos.js';
import { isStorableTimestamp, isTimestamp } from './timestamp.js';

const text = () => z.string().optional();
const nonEmpty = () => z.string().min(1, 'must not be empty');
// Zod reports a string here as "expected number"; a non-integer number is worth showing.
const notAnInteger = (input: unknown) => `expected an integer, got ${typeof input === 'number' ? input : describeType(input)}`;
const position = () =>
  z
    .int({ error: (issue) => (issue.code === 'invalid_type' ? notAnInteger(issue.input) : undefined) })
    .min(0, 'must be 0 or greater')
    .optional();

/** Any JSON object, kept as sent (cheaper than z.record(z.string(), z.unknown())). */
const jsonObject = () => z.looseObject({});

const isoTimestamp = () => z.string().refine(isTimestamp, { error: 'must be an ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z', abort: true });
const timestampSchema = isoTimestamp().meta({ format: 'date-time', description: 'ISO 8601; without a zone it is read as UTC.' });
/** The event's own time is stored (and partitioned on): it must be one the store can hold. */
const eventTimestampSchema = isoTimestamp()
  .refine(isStorableTimestamp, `must be ${STORABLE_RANGE}`)
  .meta({ format: 'date-time', description: `ISO 8601; without a zone it is read as UTC. ${STORABLE_RANGE}.` });

export const levelSchema = z.enum(LEVELS);

export const stackFrameSchema = z.object({
  filename: text(),
  abs_path: text(),
  module: text(),
  function: text(),
  platform: text(),
  lineno: position(),
  colno: position(),
  in_app: z.boolean().optional(),
  context_line: text(),
  pre_context: z.array(z.string()).optional(),
  post_context: z.array(z.string()).optional(),
});

export const exceptionSchema = z.object({
  type: nonEmpty(),
  value: z.string(),
  module: text(),
  stacktrace: z.array(stackFrameSchema).optional().meta({ description: 'Oldest call first, the crashing frame last.' }),
});

export const userSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).optional(),
  email: text(),
  username: text(),
  ip_address: text(),
});

export const breadcrumbSchema = z.object({
  timestamp: timestampSchema.optional(),
  type: text(),
  category: text(),
  message: text(),
  level: levelSchema.optional(),
  data: jsonObject().optional(),
});

export const requestSchema = z.object({
  url: text(),
  method: text(),
  headers: z.record(z.string(), z.string()).optional(),
  query_string: text(),
  data: z.unknown().optional(),
});

export const sdkSchema = z.object({
  name: text(),
  version: text(),
});

export const errorEventInputSchema = z.object({
  id: z
    .string()
    .regex(
      /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/,
      'must be a UUID, e.g. 0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e (32 hex digits without dashes also accepted)',
    )
    .optional()
    .meta({ description: 'Assigned (UUIDv7) when omitted. Normalized to lower case with dashes.' }),
  timestamp: eventTimestampSchema,
  environment: nonEmpty(),
  release: nonEmpty().meta({ description: 'Any non-empty string; `<app>@<version>` is parsed.' }),
  level: levelSchema.default('error'),
  message: text(),
  platform: text(),
  exception: exceptionSchema,
  user: userSchema.optional(),
  tags: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
    .optional()
    .meta({ description: 'Numbers and booleans are stored as strings.' }),
  trace_id: z
    .string()
    .regex(/^[0-9A-Za-z_-]{1,64}$/, 'must be 1-64 characters of [0-9A-Za-z_-]')
    .optional(),
  replay_id: z
    .string()
    .regex(/^rpl_[0-9A-Za-z_-]{1,64}$/, 'must be shaped rpl_<id>, <id> being 1-64 characters of [0-9A-Za-z_-]')
    .optional(),
  breadcrumbs: z.array(breadcrumbSchema).optional().meta({ description: 'Oldest first.' }),
  contexts: z.record(z.string(), jsonObject()).optional(),
  request: requestSchema.optional(),
  fingerprint: z.array(nonEmpty()).optional().meta({ description: 'Custom grouping: events with the same fingerprint form one issue.' }),
  sdk: sdkSchema.optional(),
});

/** What the schema yields, before the post-pass. */
export type ParsedEvent = z.output<typeof errorEventInputSchema>;

/** The ingest body as JSON Schema, for /v1/openapi.json. */
export const errorEventJsonSchema = z.toJSONSchema(errorEventInputSchema, { io: 'input' }) as Record<string, unknown>;
