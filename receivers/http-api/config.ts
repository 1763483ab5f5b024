import { z } from 'zod';

export const httpApiConfigSchema = z
  .object({
    max_event_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024)
      .describe('Largest event body, on the wire and after gzip/deflate inflation (413 past it)'),
    max_replay_chunk_bytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Largest replay chunk, on the wire and after inflation (of the body, or of its base64 `data`) (413 past it); default: service.limits.replay_chunk_bytes (10 MiB)',
      ),
    sentry: z
      .object({
        enabled: z.boolean().default(true).describe('Mount the Sentry-SDK routes POST /api/{ingest_id}/envelope/ and /store/'),
        max_envelope_bytes: z
          .number()
          .int()
          .positive()
          .default(10 * 1024 * 1024)
          .describe('Largest envelope, on the wire and after gzip/deflate/br inflation (413 past it)'),
        max_attachment_bytes: z
          .number()
          .int()
          .positive()
          .default(5 * 1024 * 1024)
          .describe('Largest attachment item of an envelope (413 past it); an event or transaction item is capped by max_event_bytes'),
      })
      .strict()
      .default({ enabled: true, max_envelope_bytes: 10 * 1024 * 1024, max_attachment_bytes: 5 * 1024 * 1024 })
      .describe('Sentry-SDK ingest (envelopes and the store endpoint, authenticated by DSN keys)'),
  })
  .strict();

export type HttpApiConfig = z.infer<typeof httpApiConfigSchema>;
