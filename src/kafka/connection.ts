// What the kafka receiver and exporter share: the connection settings of their YAML sections and
// a kafkajs client that logs through the service's pino logger.
import kafkajs from 'kafkajs';
import type { Kafka, logCreator } from 'kafkajs';
import type { Logger } from 'pino';
import { z } from 'zod';
import { SIGNALS, type Signal } from '../engine/item.js';

const { Kafka: KafkaClient, logLevel } = kafkajs;

/** The topic each signal travels on unless `topics` says otherwise. */
export const DEFAULT_TOPICS: Record<Signal, string> = {
  events: 'faultline.events',
  traces: 'faultline.traces',
  replays: 'faultline.replays',
};

export const brokersSchema = z
  .array(z.string().regex(/^[^\s:]+:\d+$/, 'host:port'))
  .min(1)
  .default(['127.0.0.1:9092'])
  .describe('Bootstrap brokers, host:port (a string with commas also works: "${env:FAULTLINE_KAFKA_BROKERS}")');

export const topicsSchema = z
  .object(
    Object.fromEntries(SIGNALS.map((signal) => [signal, z.string().min(1).default(DEFAULT_TOPICS[signal]).describe(`Topic of ${signal}`)])) as {
      [S in Signal]: z.ZodDefault<z.ZodString>;
    },
  )
  .strict();

export const connectionSchema = {
  brokers: z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((b) => b.trim())
            .filter(Boolean)
        : value,
    brokersSchema,
  ),
  client_id: z.string().min(1).default('faultline').describe('Kafka client id (broker logs and quotas)'),
  connection_timeout_ms: z.number().int().positive().default(3000).describe('Time to open a connection to a broker'),
  request_timeout_ms: z.number().int().positive().default(10_000).describe('Time a broker has to answer one request'),
};

export interface ConnectionConfig {
  brokers: string[];
  client_id: string;
  connection_timeout_ms: number;
  request_timeout_ms: number;
}

/** kafkajs levels onto pino's: kafkajs logs a broker outage as errors, which are ours to report (once). */
function pinoLogCreator(logger: Logger): logCreator {
  return () =>
    ({ level, log }) => {
      const { message, ...extra } = log;
      const child = { component: 'kafkajs', ...extra };
      if (level === logLevel.ERROR || level === logLevel.WARN) logger.debug(child, message);
      else logger.trace(child, message);
    };
}

export function createKafka(config: ConnectionConfig, logger: Logger, retry: { retries: number; maxRetryTime?: number }): Kafka {
  return new KafkaClient({
    clientId: config.client_id,
    brokers: config.brokers,
    connectionTimeout: config.connection_timeout_ms,
    requestTimeout: config.request_timeout_ms,
    retry: { initialRetryTime: 100, ...retry },
    logLevel: logLevel.WARN,
    logCreator: pinoLogCreator(logger),
  });
}
