import { z } from 'zod';

export const httpApiConfigSchema = z
  .object({
    /** Largest event body (after decompression); defaults to service.limits.event_body_bytes. */
    max_event_bytes: z.number().int().positive().optional(),
  })
  .strict();

export type HttpApiConfig = z.infer<typeof httpApiConfigSchema>;
