// The body of POST /v1/events: the contract between senders, the validation processor and the
// OpenAPI description. Types, required fields and formats only: size caps, unknown fields and
// normalization are the validation processor's post-pass. Transforms here are limited to
// stringifying, so that z.toJSONSchema(errorEventInputSchema, { io: 'input' }) describes the body.
import { z } from 'zod';
import { LEVELS } from './event.js';
import { describeType } from './json-type.js';
import { STORABLE_RANGE } from './nanos.js';
import { isStorableTimestamp, isTimestamp } from './timestamp.js';
import { UUID_PATTERN } from './uuid.js';

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

const UUID_EXAMPLE = 'must be a UUID, e.g. 0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e (32 hex digits without dashes also accepted)';
/** A UUID, dashed or as 32 hex digits; stored lower-case with dashes. */
const uuidString = () => z.string().regex(UUID_PATTERN, UUID_EXAMPLE);
/** An address in memory, as Sentry's native SDKs write it; stored lower-case. */
const address = () => z.string().regex(/^0[xX][0-9a-fA-F]{1,16}$/, 'must be a hex address, e.g. 0x7ff6a3c41000');
/**
 * A native module's debug id: a UUID with an optional age appended (`…-1`, Sentry's form), or the
 * 33-40 hex digits of a Breakpad id. Stored lower-case.
 */
const nativeDebugId = () =>
  z
    .string()
    .regex(
      /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?:-[0-9a-fA-F]{1,8})?|[0-9a-fA-F]{32,40})$/,
      'must be a debug id: a UUID with an optional age (…-1), or 32-40 hex digits',
    );

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
  debug_id: uuidString().optional().meta({ description: "The debug id of the frame's file (injected by a bundler plugin or sentry-cli)." }),
  instruction_addr: address().optional().meta({ description: 'Native frames: the absolute address of the instruction.' }),
});

export const exceptionSchema = z.object({
  type: nonEmpty(),
  value: z.string(),
  module: text(),
  stacktrace: z.array(stackFrameSchema).optional().meta({ description: 'Oldest call first, the crashing frame last.' }),
  mechanism: jsonObject()
    .optional()
    .meta({ description: "How the exception was caught (Sentry's `mechanism`: `type`, `handled`, `exception_id`, `parent_id`, …), kept as sent." }),
  // A getter: zod 4's way of declaring a recursive object.
  get cause() {
    return exceptionSchema.optional().meta({
      description:
        'The exception this one wraps (Java `getCause()`, Python `raise … from`, JavaScript `Error.cause`), recursively: the raised exception outermost, the root cause innermost.',
    });
  },
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

/** The image types symbolication uses, each with its own fields (DebugImage in event.ts). */
export const debugImageSchemas = {
  sourcemap: z.object({ type: z.literal('sourcemap'), code_file: nonEmpty(), debug_id: uuidString() }),
  proguard: z.object({ type: z.literal('proguard'), uuid: uuidString() }),
  native: z.object({
    type: z.enum(['elf', 'macho', 'pe']),
    debug_id: nativeDebugId(),
    code_file: text(),
    image_addr: address(),
    image_size: position(),
  }),
};
const NATIVE_IMAGE_TYPES: ReadonlySet<string> = new Set(['elf', 'macho', 'pe']);

export function debugImageSchema(type: string): (typeof debugImageSchemas)[keyof typeof debugImageSchemas] | undefined {
  if (type === 'sourcemap' || type === 'proguard') return debugImageSchemas[type];
  return NATIVE_IMAGE_TYPES.has(type) ? debugImageSchemas.native : undefined;
}

/** Marks the messages zod's default wording would give, so that the caller's error map words them instead. */
const UNWORDED = '\u0000unworded';

/**
 * An image is checked by its `type`: the known types with their own schema (each problem at its
 * field's path); any other type passes here and is dropped with a note by the validation processor.
 */
const debugImage = () =>
  z
    .looseObject({ type: nonEmpty() })
    .superRefine((image, ctx) => {
      const result = debugImageSchema(image.type)?.safeParse(image, { reportInput: true, error: () => UNWORDED });
      if (!result || result.success) return;
      for (const issue of result.error.issues) {
        const { message, ...unworded } = issue;
        ctx.addIssue((message === UNWORDED ? unworded : issue) as z.core.$ZodRawIssue);
      }
    })
    .meta({
      description: 'Checked by `type`: sourcemap, proguard, elf, macho, pe. Images of other types are discarded with a note.',
      anyOf: Object.values(debugImageSchemas).map((schema) => {
        const { $schema: _schema, ...json } = z.toJSONSchema(schema, { io: 'input' });
        return json;
      }),
    });

export const debugMetaSchema = z.object({
  images: z.array(debugImage()).meta({ description: 'The bundles, mapping files and native modules the frames came from.' }),
});

export const errorEventInputSchema = z.object({
  id: uuidString().optional().meta({ description: 'Assigned (UUIDv7) when omitted. Normalized to lower case with dashes.' }),
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
  dist: nonEmpty()
    .max(64, 'must be at most 64 characters')
    .optional()
    .meta({ description: 'The distribution of the release (one release built several ways).' }),
  debug_meta: debugMetaSchema.optional().meta({ description: "Sentry's debug_meta: where symbolication finds the frames' source maps and symbols." }),
});

/** What the schema yields, before the post-pass. */
export type ParsedEvent = z.output<typeof errorEventInputSchema>;

/** The ingest body as JSON Schema, for /v1/openapi.json. */
export const errorEventJsonSchema = inlineException(z.toJSONSchema(errorEventInputSchema, { io: 'input' }) as JsonSchema);

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; $defs?: Record<string, JsonSchema>; $ref?: string };

/**
 * zod describes the recursive `cause` with a `$ref` into `$defs`, which does not survive being
 * embedded in the OpenAPI document: the exception is inlined, and its `cause` says it has the
 * same shape.
 */
function inlineException(schema: JsonSchema): JsonSchema {
  const { $defs, ...rest } = schema;
  const ref = rest.properties?.exception?.$ref;
  const exception = ref === undefined ? undefined : $defs?.[ref.slice(ref.lastIndexOf('/') + 1)];
  if (exception === undefined || rest.properties === undefined) return schema;
  const { description } = exception.properties?.cause ?? {};
  rest.properties.exception = {
    ...exception,
    properties: { ...exception.properties, cause: { type: 'object', description: `${String(description ?? '')} The same shape as \`exception\`.`.trim() } },
  };
  return rest;
}
