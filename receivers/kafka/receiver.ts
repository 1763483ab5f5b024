// The kafka receiver: one consumer group member over the topics of the signals its pipelines take.
// Each fetched batch of a partition is decoded into items and handed to the pipelines in chunks;
// a chunk's offset is committed only once consume() resolved, i.e. once every exporter of every
// pipeline made its items durable (at-least-once: a crash before the commit redelivers them, and
// ids make the copy harmless in reads). While the pipelines' budget is full, or an exporter
// fails, the partition's handler waits (heartbeating) and nothing more is fetched for it: the
// receiver holds back instead of buffering.
import kafkajs from 'kafkajs';
import type { Consumer as KafkaConsumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Consumer, Receiver, ReceiverSettings } from '../../src/engine/component.js';
import { ExportError, OverloadedError, ShuttingDownError } from '../../src/engine/errors.js';
import { isLive, type Item, type Signal } from '../../src/engine/item.js';
import { createKafka } from '../../src/kafka/connection.js';
import { stayInGroup } from '../../src/kafka/group-member.js';
import { decodeRecord, HEADER_SCHEMA, RecordDecodeError } from '../../src/kafka/record.js';
import type { KafkaReceiverConfig } from './config.js';
import { OtlpProtoDecoder } from './otlp-proto.js';

const { KafkaJSNonRetriableError } = kafkajs;

/** What one span or event is charged against the budget when its message gives no better size. */
const MIN_ITEM_SIZE = 512;

export class KafkaReceiver implements Receiver {
  private consumer?: KafkaConsumer;
  private stopping = false;
  private readonly signalOfTopic = new Map<string, Signal>();
  private readonly otlp: OtlpProtoDecoder;
  private running?: Promise<void>;

  constructor(private readonly settings: ReceiverSettings<KafkaReceiverConfig>) {
    for (const signal of Object.keys(settings.consumers) as Signal[]) this.signalOfTopic.set(settings.config.topics[signal], signal);
    this.otlp = new OtlpProtoDecoder(settings.host, settings.config.key);
  }

  async start(): Promise<void> {
    // In the background: a broker that is down at start is waited for, not a failed start.
    this.running = this.runUntilStopped();
  }

  async shutdown(): Promise<void> {
    this.stopping = true;
    // kafkajs lets the batch in hand finish (its offsets committed) before it leaves the group.
    await this.consumer?.disconnect().catch(() => undefined);
    await this.running;
  }

  /** Connects, joins the group and consumes; after a crash kafkajs does not restart from (a non-retriable one), starts over. */
  private runUntilStopped(): Promise<void> {
    const { config, host, id } = this.settings;
    return stayInGroup({
      newConsumer: () => {
        const kafka = createKafka(config, host.logger, { retries: 1_000_000, maxRetryTime: 5000 });
        return (this.consumer = kafka.consumer({
          groupId: config.group_id,
          sessionTimeout: config.session_timeout_ms,
          rebalanceTimeout: config.rebalance_timeout_ms,
          heartbeatInterval: config.heartbeat_interval_ms,
          // kafkajs heartbeats between fetches, and a fetch long-polls on the coordinator's
          // connection: a wait longer than the session timeout would expire the member on an idle topic.
          maxWaitTimeInMs: Math.min(config.fetch_max_wait_ms, Math.floor(config.session_timeout_ms / 3)),
          allowAutoTopicCreation: true,
          retry: { retries: 1_000_000, initialRetryTime: 100, maxRetryTime: 5000 },
        }));
      },
      start: async (consumer) => {
        await consumer.connect();
        await consumer.subscribe({ topics: [...this.signalOfTopic.keys()], fromBeginning: config.from_beginning });
        await consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: config.partitions_concurrently,
          eachBatch: (payload) => this.onBatch(payload),
        });
      },
      stopping: () => this.stopping,
      rejoining: (error) => host.logger.warn({ receiver: id.text, err: error }, 'the Kafka consumer stopped: joining the group again'),
      failed: (error) => host.logger.warn({ receiver: id.text, err: error instanceof Error ? error.message : String(error) }, 'cannot reach Kafka: retrying'),
    });
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const signal = this.signalOfTopic.get(batch.topic);
    const consumer = signal && this.settings.consumers[signal];
    if (!signal || !consumer) return;
    const { max_batch_items: max } = this.settings.config;
    let start = 0;
    while (start < batch.messages.length) {
      // A chunk: messages up to max_batch_items items (an otlp_proto message may hold many).
      let end = start;
      let count = 0;
      while (end < batch.messages.length && (end === start || count < max)) {
        count += this.estimate(signal, batch.messages[end]);
        end++;
      }
      const chunk = batch.messages.slice(start, end);
      const delivered = await this.deliver(signal, consumer, chunk, heartbeat, () => isRunning() && !isStale());
      if (!delivered) return; // leaving, or the partition moved to another member: it redelivers from the last commit
      const last = chunk[chunk.length - 1].offset;
      resolveOffset(last);
      try {
        await this.consumer?.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() }]);
      } catch (error) {
        // A rebalance is under way (or this member was dropped): the chunk stays uncommitted, and
        // whoever owns the partition next starts from the last commit (a redelivery, harmless: ids
        // are idempotent to the reads). The group error is rethrown as kafkajs's runner knows it,
        // so the member rejoins at once (kafkajs wraps it as non-retriable, which would crash it).
        this.settings.host.logger.info(
          { topic: batch.topic, partition: batch.partition, err: String(error) },
          'offset commit failed: these items may be delivered again',
        );
        const rejoin = groupError(error);
        if (rejoin) throw rejoin;
        return; // another failure (the broker away): the next fetch starts after the resolved offset, a later commit covers this chunk
      }
      start = end;
    }
  }

  private estimate(signal: Signal, message: KafkaMessage): number {
    return signal === 'traces' && !message.headers?.[HEADER_SCHEMA] ? Math.max(1, Math.floor((message.value?.length ?? 0) / 200)) : 1;
  }

  /**
   * Hands the chunk's items to the pipelines until they take them; false if the member should
   * stop first. Items are decoded afresh for each try: processors change items in place.
   */
  private async deliver(signal: Signal, consumer: Consumer, chunk: KafkaMessage[], heartbeat: () => Promise<void>, active: () => boolean): Promise<boolean> {
    const { host, id, config } = this.settings;
    for (;;) {
      if (!active() || this.stopping) return false;
      const items = await this.decode(signal, chunk);
      if (items.length === 0) return true;
      const bytes = items.reduce((sum, item) => sum + item.size, 0);
      try {
        consumer.assertRoom(items.length, bytes);
        await heartbeating(consumer.consume(items), heartbeat, config.heartbeat_interval_ms);
        const accepted = items.filter(isLive).length;
        host.metrics.receiverAccepted.inc({ receiver: id.text, signal }, accepted);
        const rejected = items.filter((item) => item.outcome?.kind === 'rejected');
        if (rejected.length) {
          host.metrics.receiverRefused.inc({ receiver: id.text, signal, reason: 'invalid' }, rejected.length);
          host.logger.warn(
            { receiver: id.text, signal, rejected: rejected.length, first: rejected[0].outcome },
            'the pipeline rejected items read from Kafka: skipped',
          );
        }
        return true;
      } catch (error) {
        if (error instanceof ShuttingDownError) return false;
        const reason = error instanceof OverloadedError ? 'overloaded' : 'failed';
        host.metrics.kafkaReceiverWaits.inc({ receiver: id.text, signal, reason });
        if (error instanceof ExportError)
          host.logger.warn({ receiver: id.text, signal, err: error.message }, 'export failed: holding the partition and retrying');
        else if (!(error instanceof OverloadedError)) throw error;
        await sleep(config.retry_backoff_ms);
        // A rebalance while the pipeline holds back: leave the chunk uncommitted and rejoin.
        await heartbeat().catch((failure: unknown) => {
          const rejoin = groupError(failure);
          if (rejoin) throw rejoin;
        });
      }
    }
  }

  /** The chunk's items; messages that cannot be read are counted, logged and skipped (they would block the partition forever). */
  private async decode(signal: Signal, chunk: KafkaMessage[]): Promise<Item[]> {
    const { host, id } = this.settings;
    const items: Item[] = [];
    for (const message of chunk) {
      try {
        if (message.headers?.[HEADER_SCHEMA] !== undefined || signal !== 'traces') {
          const record = decodeRecord(message.value);
          if (record.signal !== signal) throw new RecordDecodeError(`a ${record.signal} record on the ${signal} topic`);
          items.push({ data: record.record, tenant: record.tenant, receivedAt: record.receivedAt, size: Math.max(MIN_ITEM_SIZE, message.value?.length ?? 0) });
        } else {
          items.push(...(await this.otlp.decode(message)));
        }
      } catch (error) {
        if (!(error instanceof RecordDecodeError) && !(error instanceof KafkaJSNonRetriableError) && !isDecodeFailure(error)) throw error;
        host.metrics.receiverRefused.inc({ receiver: id.text, signal, reason: 'invalid' });
        host.logger.warn({ receiver: id.text, signal, offset: message.offset, err: (error as Error).message }, 'skipped a Kafka message that cannot be read');
      }
    }
    return items;
  }
}

/** The group error under a kafkajs error that asks this member to rejoin (rebalance, new generation, unknown member), as kafkajs's runner recognizes it. */
function groupError(error: unknown): Error | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && GROUP_ERRORS.has(type)) return e;
  }
  return undefined;
}

const GROUP_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'NOT_COORDINATOR_FOR_GROUP', 'UNKNOWN_MEMBER_ID']);

function isDecodeFailure(error: unknown): boolean {
  return error instanceof Error && (error.name === 'OtlpDecodeError' || error.name === 'ApiError');
}

/**
 * Waits for `work` while heartbeating the group: an exporter may hold an export until its rows
 * are published to the lake (parquet `ack: lake`), longer than a session. A heartbeat that fails
 * (a rebalance) is left to the commit after the work, which rejoins.
 */
async function heartbeating<T>(work: Promise<T>, heartbeat: () => Promise<void>, intervalMs: number): Promise<T> {
  let done = false;
  const beats = (async () => {
    while (!done) {
      await sleep(intervalMs);
      if (!done) await heartbeat().catch(() => undefined);
    }
  })();
  try {
    return await work;
  } finally {
    done = true;
    void beats;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
