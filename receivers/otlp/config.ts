import { z } from 'zod';

export const otlpConfigSchema = z
  .object({
    /** Defaults: service.otlp.host and service.otlp.port (FAULTLINE_OTLP_PORT, 4318). */
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65535).optional(),
  })
  .strict();

export type OtlpConfig = z.infer<typeof otlpConfigSchema>;
