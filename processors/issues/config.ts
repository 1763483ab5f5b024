import { z } from 'zod';

/** The `issues` processor's YAML section. */
export const issuesConfigSchema = z
  .object({
    ignore_check_interval_ms: z
      .int()
      .min(10)
      .default(30_000)
      .describe('How often issues ignored for some minutes or until a time are checked, and returned to unresolved once it has come'),
  })
  .strict();

export type IssuesConfig = z.output<typeof issuesConfigSchema>;
