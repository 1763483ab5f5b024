import { z } from 'zod';

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
  })
  .strict();

export type DuckdbConfig = z.infer<typeof duckdbConfigSchema>;
