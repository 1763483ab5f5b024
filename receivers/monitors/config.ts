import { z } from 'zod';
import { connectionSchema } from '../../src/kafka/connection.js';

/** Monitors across the Kafka roles (receivers/monitors/bus.ts); absent: this node keeps its monitors to itself. */
const kafkaSchema = z
  .object({
    brokers: connectionSchema.brokers,
    topic: z.string().min(1).default('faultline.monitors').describe("The topic of check-ins and monitors' state, keyed by monitor"),
    group_id: z
      .string()
      .min(1)
      .default('faultline-monitors')
      .describe('The consumer group of the nodes that decide: each monitor is decided by the member its partition is assigned to'),
    decide: z
      .boolean()
      .default(true)
      .describe('Join the group and decide for the monitors of the partitions it gives (workers); false: take check-ins and serve reads only (ingest, query)'),
    idempotent: z.boolean().default(true).describe('Idempotent producer (turn off only for brokers that lack it, like the librdkafka mock)'),
    session_timeout_ms: z.int().min(1000).default(30_000).describe("The group's session timeout: how soon a stopped decider's monitors move to another"),
    heartbeat_interval_ms: z.int().min(100).default(3000).describe('Heartbeats to the group'),
    fetch_max_wait_ms: z.int().min(10).default(1000).describe('How long a fetch waits for records'),
    request_timeout_ms: z.int().min(100).default(10_000).describe('Time a broker has to answer, a check-in included'),
  })
  .strict();

export type MonitorsKafkaConfig = z.output<typeof kafkaSchema>;

/** The `monitors` receiver's YAML section. An absent section is `{}`: every key has a default. */
export const monitorsConfigSchema = z
  .object({
    detection_interval_ms: z
      .int()
      .min(100)
      .default(10_000)
      .describe('How often cron monitors are checked for missed and timed-out runs, and uptime monitors for due checks'),
    max_monitors_per_project: z.int().min(1).max(10_000).default(100).describe('Monitors one project (and dataset) may have'),
    checkin_rate_per_minute: z
      .int()
      .min(0)
      .max(60_000)
      .default(12)
      .describe(
        'Check-ins one monitor takes a minute, whatever their route or environment (a burst of this many, then evenly); more are refused with 429 (an envelope item: skipped). 0: no bound',
      ),
    min_uptime_interval_seconds: z.int().min(1).default(30).describe('The shortest interval_seconds an uptime monitor may ask for'),
    uptime_concurrency: z.int().min(1).max(64).default(8).describe('Uptime checks run at once'),
    max_redirects: z.int().min(0).max(10).default(3).describe('Redirects an uptime check follows (each target checked like the first)'),
    allow_private_destinations: z
      .boolean()
      .default(false)
      .describe('Let uptime checks reach loopback, private, link-local and metadata addresses; refused by default'),
    kafka: kafkaSchema
      .optional()
      .describe('Across the Kafka roles: check-ins travel on a topic keyed by monitor, and the worker given its partition decides for each monitor'),
  })
  .strict();

export type MonitorsConfig = z.output<typeof monitorsConfigSchema>;
