import { z } from 'zod';

export const duckdbConfigSchema = z
  .object({
    max_batch_items: z
      .number()
      .int()
      .positive()
      .default(5000)
      .describe('Most items committed in one DuckDB transaction; more waiting items go in the next one (events: the backlog limit is 4 × this)'),
  })
  .strict();

export type DuckdbConfig = z.infer<typeof duckdbConfigSchema>;
