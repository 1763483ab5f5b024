import { z } from 'zod';

export const otlpConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1').describe('Listen address (FAULTLINE_OTLP_HOST when not set here)'),
    port: z.number().int().min(0).max(65535).default(4318).describe('Listen port, 0 = any free port (FAULTLINE_OTLP_PORT when not set here)'),
  })
  .strict();

export type OtlpConfig = z.infer<typeof otlpConfigSchema>;
