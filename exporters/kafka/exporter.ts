// The kafka exporter: each batch becomes messages on its signal's topic, keyed by project, and
// export() resolves only once Kafka acknowledged the produce (acks -1 by default), so the sender's
// 202 means "in Kafka". A broker outage fails exports with UnavailableError (503 + Retry-After)
// instead of queueing them: memory stays bounded by the pipelines' budgets, nothing is held here.
import kafkajs from 'kafkajs';
import type { Message, Producer } from 'kafkajs';
import type { Exporter, ExporterSettings } from '../../src/engine/component.js';
import { UnavailableError } from '../../src/engine/errors.js';
import type { Item, Signal } from '../../src/engine/item.js';
import { createKafka } from '../../src/kafka/connection.js';
import { encodeRecord } from '../../src/kafka/record.js';
import type { Span } from '../../src/records/span.js';
import type { KafkaExporterConfig } from './config.js';
import { encodeOtlpMessages } from './otlp-proto.js';

const { CompressionTypes } = kafkajs;

interface Lingering {
  messages: Message[];
  done: Promise<void>;
  /** Sends now (the timer's or a full batch's doing); once only: it leaves the map. */
  flush: () => void;
}

export class KafkaExporter implements Exporter {
  private readonly producer: Producer;
  private connected?: Promise<void>;
  /** While set and in the future, exports fail at once: the last produce failed. */
  private unavailableUntil = 0;
  private lastError = '';
  /** Per topic, the produce that exports are joining until linger_ms elapses. */
  private readonly lingering = new Map<string, Lingering>();

  constructor(private readonly settings: ExporterSettings<KafkaExporterConfig>) {
    const { config, host } = settings;
    const kafka = createKafka(config, host.logger, { retries: 5, maxRetryTime: config.send_timeout_ms });
    this.producer = kafka.producer({
      idempotent: config.idempotent,
      // The idempotent producer keeps order with one request in flight per broker (kafkajs's rule).
      maxInFlightRequests: config.idempotent ? 1 : undefined,
      allowAutoTopicCreation: true,
    });
  }

  async start(): Promise<void> {
    // Not awaited: a broker that is down at start is an outage like any other (exports answer
    // 503 until it is back), not a reason for the ingest node to refuse to start.
    void this.connect().catch(() => undefined);
  }

  async shutdown(): Promise<void> {
    await this.producer.disconnect().catch(() => undefined);
  }

  async export(signal: Signal, items: Item[]): Promise<void> {
    const { config } = this.settings;
    if (Date.now() < this.unavailableUntil) throw new UnavailableError(`Kafka is unavailable (${this.lastError}); retry later`, config.retry_after_s);
    const messages = this.messagesOf(signal, items);
    const topic = config.topics[signal];
    if (config.linger_ms === 0) return this.send(topic, messages);
    // Linger: exports of the next few milliseconds join this produce (one record batch per
    // partition instead of one per sender); each export resolves or fails with the produce.
    let pending = this.lingering.get(topic);
    if (!pending) {
      let settle!: (sent: Promise<void>) => void;
      const done = new Promise<void>((resolve) => (settle = resolve));
      const batch: Lingering = { messages: [], done, flush: () => undefined };
      batch.flush = () => {
        clearTimeout(timer);
        if (this.lingering.get(topic) === batch) this.lingering.delete(topic);
        settle(this.send(topic, batch.messages));
      };
      const timer = setTimeout(batch.flush, config.linger_ms);
      this.lingering.set(topic, (pending = batch));
    }
    pending.messages.push(...messages);
    const { done } = pending;
    if (pending.messages.length >= config.linger_max_messages) pending.flush();
    return done;
  }

  private async send(topic: string, messages: Message[]): Promise<void> {
    const { config, id } = this.settings;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          await this.connect();
          await this.producer.send({
            topic,
            messages,
            acks: config.acks,
            timeout: config.request_timeout_ms,
            compression: config.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
          });
        })(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no acknowledgment from Kafka within ${config.send_timeout_ms} ms`)), config.send_timeout_ms);
        }),
      ]);
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.unavailableUntil = Date.now() + config.retry_after_s * 1000;
      this.connected = undefined; // reconnect on the next try
      this.settings.host.logger.warn({ exporter: id.text, topic, err: this.lastError }, 'produce to Kafka failed: answering 503 for a while');
      throw new UnavailableError(`Kafka did not acknowledge the produce (${this.lastError}); retry later`, config.retry_after_s);
    } finally {
      clearTimeout(timer);
    }
  }

  private messagesOf(signal: Signal, items: Item[]): Message[] {
    if (signal === 'traces' && this.settings.config.traces_encoding === 'otlp_proto') return encodeOtlpMessages(items as Item<Span>[]);
    return items.map((item) => {
      const record = encodeRecord(signal, item);
      return { key: record.key, value: record.value, headers: record.headers };
    });
  }

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }
}
