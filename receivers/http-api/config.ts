import { z } from 'zod';

export const httpApiConfigSchema = z
  .object({
    max_event_bytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Largest event body, on the wire and after gzip/deflate inflation (413 past it); default: service.limits.event_body_bytes (1 MiB)'),
  })
  .strict();

export type HttpApiConfig = z.infer<typeof httpApiConfigSchema>;
