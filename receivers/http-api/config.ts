import { z } from 'zod';

export const httpApiConfigSchema = z
  .object({
    max_event_bytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Largest event body, on the wire and after gzip/deflate inflation (413 past it); default: service.limits.event_body_bytes (1 MiB)'),
    max_replay_chunk_bytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Largest replay chunk, on the wire and after inflation (of the body, or of its base64 `data`) (413 past it); default: service.limits.replay_chunk_bytes (10 MiB)',
      ),
  })
  .strict();

export type HttpApiConfig = z.infer<typeof httpApiConfigSchema>;
