import { z } from 'zod';

/** The `grouping` processor's YAML section. An absent section is `{}`: every key has a default. */
export const groupingConfigSchema = z
  .object({
    max_frames: z.number().int().min(1).max(1000).default(50).describe('How many innermost frames (nearest the crash) count toward the fingerprint'),
    in_app_only: z.boolean().default(true).describe('When the stack trace has in-app frames, use only those; `false` always uses every frame'),
  })
  .strict();

export type GroupingConfig = z.output<typeof groupingConfigSchema>;

export const DEFAULT_GROUPING_CONFIG: GroupingConfig = groupingConfigSchema.parse({});
