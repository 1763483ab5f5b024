import { z } from 'zod';
import { groupingRulesSchema } from './rules/index.js';

/** The `grouping` processor's YAML section. An absent section is `{}`: every key has a default. */
export const groupingConfigSchema = z
  .object({
    max_frames: z.number().int().min(1).max(1000).default(50).describe('How many innermost frames (nearest the crash) count toward the fingerprint'),
    in_app_only: z.boolean().default(true).describe('When the stack trace has in-app frames, use only those; `false` always uses every frame'),
    upgrade_fallback_days: z
      .number()
      .int()
      .min(0)
      .max(3650)
      .default(30)
      .describe(
        "After an upgrade of the grouping algorithm, for how many days a project's events also compute the previous version's hash, so that they keep landing in the issues it opened",
      ),
    rules: groupingRulesSchema,
  })
  .strict();

export type GroupingConfig = z.output<typeof groupingConfigSchema>;

export const DEFAULT_GROUPING_CONFIG: GroupingConfig = groupingConfigSchema.parse({});
