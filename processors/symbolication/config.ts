import { z } from 'zod';

/** The `symbolication` processor's YAML section. An absent section is `{}`: every key has a default. */
export const symbolicationConfigSchema = z
  .object({
    cache_bytes: z
      .int()
      .min(1024 * 1024)
      .default(256 * 1024 * 1024)
      .describe(
        'Memory for parsed source maps, ProGuard mappings and Breakpad symbols, shared by every release (least recently used evicted first); a file larger than this is parsed for every event that needs it',
      ),
    context_lines: z.int().min(0).max(50).default(5).describe('Lines of original source shown before and after a symbolicated JavaScript frame'),
    scope_max_bytes: z
      .int()
      .min(0)
      .default(4 * 1024 * 1024)
      .describe(
        'Largest minified JavaScript file parsed for function scopes (original names of the enclosing functions); a larger one, or 0 for none, keeps the older declaration scan',
      ),
    workers: z.int().min(1).max(16).default(1).describe('Worker threads that parse artifacts off the event loop (started on first need)'),
    worker_memory_mb: z
      .int()
      .min(64)
      .default(1024)
      .describe('Heap limit of each parsing worker: a file that needs more ends that worker (a new one takes its place) and counts as malformed'),
    parse_timeout_ms: z
      .int()
      .min(100)
      .default(30_000)
      .describe('A parse still running after this long ends its worker (a new one takes its place) and counts as malformed'),
    event_budget_ms: z
      .int()
      .min(10)
      .default(5_000)
      .describe('Time one event may wait for symbolication: frames not resolved by then stay as received, with a processing error'),
    failed_ttl_ms: z.int().min(0).default(60_000).describe('How long an artifact that failed to parse stays marked as failed before it is tried again'),
    lookup_ttl_ms: z
      .int()
      .min(0)
      .default(10_000)
      .describe('How long the answer to an artifact lookup (found or not) is reused: an upload is seen by new events at most this late'),
  })
  .strict();

export type SymbolicationConfig = z.output<typeof symbolicationConfigSchema>;

export const DEFAULT_SYMBOLICATION_CONFIG: SymbolicationConfig = symbolicationConfigSchema.parse({});
