import { z } from 'zod';
import { dataScrubbingSchema, SCRUBBING_DEFAULTS } from '../../src/records/data-scrubbing.js';

const shape = dataScrubbingSchema.shape;

/**
 * The `scrubbing` processor's YAML section: the options every project starts from (a project's
 * `data_scrubbing`, set with PATCH /v1/projects/{id}, overrides the flags and adds to the lists).
 */
export const scrubbingConfigSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('false: items pass unchanged. A pipeline that stores items needs this processor; `enabled: false` says so on purpose'),
    defaults: shape.defaults.unwrap().default(SCRUBBING_DEFAULTS.defaults),
    scrub_ip: shape.scrub_ip.unwrap().default(SCRUBBING_DEFAULTS.scrub_ip),
    scrub_email: shape.scrub_email.unwrap().default(SCRUBBING_DEFAULTS.scrub_email),
    sensitive_fields: shape.sensitive_fields.unwrap().default([]),
    safe_fields: shape.safe_fields.unwrap().default([]),
    rules: shape.rules.unwrap().default([]),
    mask_all_text: shape.mask_all_text.unwrap().default(SCRUBBING_DEFAULTS.mask_all_text),
    mask_all_inputs: shape.mask_all_inputs.unwrap().default(SCRUBBING_DEFAULTS.mask_all_inputs),
  })
  .strict();

export type ScrubbingConfig = z.output<typeof scrubbingConfigSchema>;
