import { z } from 'zod';

export const duckdbConfigSchema = z
  .object({
    /** Most items committed in one transaction; more waiting items go in the next one. */
    max_batch_items: z.number().int().positive().default(5000),
  })
  .strict();

export type DuckdbConfig = z.infer<typeof duckdbConfigSchema>;
