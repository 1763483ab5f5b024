import { z } from 'zod';

export const otlpConfigSchema = z
  .object({
    host: z.string().min(1).optional().describe('Listen address; default: service.otlp.host (127.0.0.1)'),
    port: z.number().int().min(0).max(65535).optional().describe('Listen port, 0 = any free port; default: service.otlp.port (4318, FAULTLINE_OTLP_PORT)'),
  })
  .strict();

export type OtlpConfig = z.infer<typeof otlpConfigSchema>;
