import { z } from 'zod';

/** The `grouping` processor's YAML section. An absent section is `{}`: every key has a default. */
export const groupingConfigSchema = z
  .object({
    /** How many innermost frames (nearest the crash) count toward the fingerprint. */
    max_frames: z.number().int().min(1).max(1000).default(50),
    /** Prefer in-app frames when the stack trace has any; `false` always uses every frame. */
    in_app_only: z.boolean().default(true),
  })
  .strict();

export type GroupingConfig = z.output<typeof groupingConfigSchema>;

export const DEFAULT_GROUPING_CONFIG: GroupingConfig = groupingConfigSchema.parse({});
