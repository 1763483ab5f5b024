import { z } from 'zod';
import { DEFAULT_LINGER } from './commit-linger.js';

const durabilitySchema = z
  .object({
    linger_ms: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(DEFAULT_LINGER.lingerMs)
      .describe(
        'While requests arrive closer together than this, the synced DocStore commit that acknowledges them waits up to this long for more to share it (0: only those of the same event-loop turn share one)',
      ),
  })
  .strict();

export const duckdbConfigSchema = z
  .object({
    max_batch_items: z
      .number()
      .int()
      .positive()
      .default(5000)
      .describe('Most items committed in one DuckDB transaction; more waiting items go in the next one (the backlog limit is 4 × this)'),
    max_backlog_bytes: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024)
      .describe('Acknowledged documents (bytes) waiting to be indexed, per signal; past it senders wait, so large events turn into refusals, not memory'),
    span_documents: z
      .enum(['batch', 'per_span'])
      .default('batch')
      .describe(
        "How spans are stored: batch = one document per accepted batch (a request's spans), per_span = one document per span (the layout before batches). Either layout's spans read back under both",
      ),
    durability: durabilitySchema.prefault({}),
  })
  .strict();

export type DuckdbConfig = z.infer<typeof duckdbConfigSchema>;
