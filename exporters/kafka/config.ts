import { z } from 'zod';
import { connectionSchema, topicsSchema } from '../../src/kafka/connection.js';

export const kafkaExporterConfigSchema = z
  .object({
    ...connectionSchema,
    topics: topicsSchema.prefault({}).describe('The topic of each signal'),
    traces_encoding: z
      .enum(['faultline_json', 'otlp_proto'])
      .default('faultline_json')
      .describe(
        'How spans are written: faultline_json (one message per span, the validated record) or otlp_proto (one OTLP TracesData message per batch and project, as the Collector kafka exporter writes)',
      ),
    compression: z.enum(['none', 'gzip']).default('gzip').describe('Compression of produced batches (kafkajs has gzip built in)'),
    acks: z
      .union([z.literal(-1), z.literal(1)])
      .default(-1)
      .describe('-1: every in-sync replica has the batch before the produce is acknowledged (and the sender is); 1: the leader alone'),
    idempotent: z
      .boolean()
      .default(true)
      .describe("kafkajs's idempotent producer (no duplicates from its own retries); needs a broker with a controller, which the librdkafka mock has not"),
    send_timeout_ms: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('Longest a produce may take, retries included; past it the export fails and senders get 503 + Retry-After'),
    retry_after_s: z
      .number()
      .int()
      .positive()
      .default(5)
      .describe('After a failed produce, exports fail at once for this long (a broker outage costs senders no wait), and this is the Retry-After they get'),
    linger_ms: z
      .number()
      .int()
      .min(0)
      .default(5)
      .describe(
        "Exports arriving within this window go out as one produce per topic (Kafka's linger.ms): fewer, larger record batches; each sender is still acknowledged only once Kafka acknowledged its messages. 0 sends each export alone",
      ),
    linger_max_messages: z.number().int().positive().default(5000).describe('A lingering produce goes out at once when it holds this many messages'),
  })
  .strict();

export type KafkaExporterConfig = z.infer<typeof kafkaExporterConfigSchema>;
