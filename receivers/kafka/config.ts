import { z } from 'zod';
import { connectionSchema, topicsSchema } from '../../src/kafka/connection.js';

export const kafkaReceiverConfigSchema = z
  .object({
    ...connectionSchema,
    group_id: z.string().min(1).default('faultline-workers').describe('Consumer group: the workers sharing one group share the partitions'),
    topics: topicsSchema.prefault({}).describe("The topic of each signal (only the signals of this receiver's pipelines are consumed)"),
    key: z
      .string()
      .min(1)
      .optional()
      .describe(
        'API key for otlp_proto messages without faultline tenant headers (written by an OpenTelemetry Collector): it fixes the organization and dataset, and the project as on OTLP/HTTP',
      ),
    from_beginning: z
      .boolean()
      .default(true)
      .describe('A group with no committed offset starts at the earliest message (nothing produced before the first worker is lost)'),
    max_batch_items: z.number().int().positive().default(1000).describe('Most items handed to the pipeline in one batch (offsets are committed per batch)'),
    partitions_concurrently: z.number().int().positive().default(4).describe('Partitions whose batches are processed at the same time'),
    session_timeout_ms: z.number().int().positive().default(30_000).describe('Consumer group session timeout: a worker silent this long loses its partitions'),
    rebalance_timeout_ms: z.number().int().positive().default(60_000).describe('How long the group waits for members to rejoin during a rebalance'),
    heartbeat_interval_ms: z.number().int().positive().default(3000).describe('Heartbeat interval (below a third of the session timeout)'),
    fetch_max_wait_ms: z
      .number()
      .int()
      .positive()
      .default(500)
      .describe(
        'Longest a fetch waits on the broker for new messages; keep it well below the session timeout (heartbeats go out between fetches, on the same connection)',
      ),
    retry_backoff_ms: z
      .number()
      .int()
      .positive()
      .default(500)
      .describe('Wait before handing a batch in again after the pipeline refused it (budget full) or an exporter failed'),
  })
  .strict();

export type KafkaReceiverConfig = z.infer<typeof kafkaReceiverConfigSchema>;
