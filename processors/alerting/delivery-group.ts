// Who sends a shared firing (issue #31): the workers that deliver alerts form one consumer group
// on the control plane's topic, and the worker given a partition sends the pending deliveries of
// the firings whose records are in it. It consumes nothing itself (every node applies the whole
// topic through the control plane); the group only hands partitions out, and takes those of a
// worker that stopped or died (after its session timeout) to the others.
//
// A worker sends for its partitions only once it has applied the whole topic up to where it ended
// when they were assigned: the outcomes its predecessor recorded are then known here, so what was
// delivered is not sent again. It stops when a rebalance starts, or when the group has not
// confirmed it for a session timeout (it may have been replaced).
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import type { ControlPlane } from '../../extensions/control-plane/index.js';
import { createKafka } from '../../src/kafka/connection.js';
import { stayInGroup } from '../../src/kafka/group-member.js';
import type { DeliveryConfig } from './config.js';

export class DeliveryGroup {
  private readonly kafka: Kafka;
  private consumer?: Consumer;
  private running?: Promise<void>;
  private stopped = false;
  private assigned: number[] = [];
  /** Where the topic ended at the assignment: sending starts once the control plane applied that much. */
  private ends?: Map<number, number>;
  private generation = 0;
  private confirmedAt = 0;
  private readyTimer?: NodeJS.Timeout;

  constructor(
    private readonly plane: ControlPlane,
    private readonly config: DeliveryConfig,
    private readonly logger: Logger,
    private readonly partitionsGauge: Gauge,
    /** Called when this node's partitions changed (delivery may start). */
    private readonly onChange: () => void,
  ) {
    this.kafka = createKafka(
      { brokers: plane.config.brokers, client_id: 'faultline-alert-delivery', connection_timeout_ms: 3000, request_timeout_ms: 10_000 },
      logger,
      { retries: 1_000_000, maxRetryTime: 5000 },
    );
  }

  /** The partitions whose shared firings this node sends now (none while it is not ready). */
  owned(): number[] {
    if (!this.ends || Date.now() - this.confirmedAt >= this.config.session_timeout_ms) return [];
    return this.plane.reached(this.ends) ? this.assigned : [];
  }

  start(): void {
    // In the background: a broker that is down delays delivery of shared firings, not the start.
    this.running = this.runUntilStopped();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unassign();
    await this.consumer?.disconnect().catch(() => undefined);
    await this.running;
  }

  /** Joins the group and stays in it; after a crash kafkajs does not restart from (a non-retriable one), joins again. */
  private runUntilStopped(): Promise<void> {
    const session = this.config.session_timeout_ms;
    return stayInGroup({
      newConsumer: () => {
        const consumer = (this.consumer = this.kafka.consumer({
          groupId: this.config.group_id,
          sessionTimeout: session,
          rebalanceTimeout: session,
          heartbeatInterval: this.config.heartbeat_interval_ms,
          // Heartbeats go out between fetches: a long-polling fetch must stay well inside the session.
          maxWaitTimeInMs: Math.min(500, Math.floor(session / 3)),
          allowAutoTopicCreation: true,
          retry: { retries: 1_000_000, initialRetryTime: 100, maxRetryTime: 5000 },
        }));
        consumer.on(consumer.events.REBALANCING, () => this.unassign());
        consumer.on(consumer.events.STOP, () => this.unassign());
        consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
          this.confirmedAt = Date.now();
          void this.assign(payload.memberAssignment[this.plane.config.topic] ?? []);
        });
        consumer.on(consumer.events.HEARTBEAT, () => (this.confirmedAt = Date.now()));
        return consumer;
      },
      start: async (consumer) => {
        await consumer.connect();
        await consumer.subscribe({ topics: [this.plane.config.topic], fromBeginning: false });
        await consumer.run({ autoCommit: true, eachMessage: () => Promise.resolve() });
      },
      stopping: () => this.stopped,
      crashed: () => this.unassign(),
      rejoining: (error) => this.logger.warn({ err: String(error) }, 'alerting: the delivery group member stopped: joining again'),
      failed: (error) =>
        this.logger.warn({ err: String(error) }, 'alerting: cannot join the delivery group: retrying (shared firings wait for another worker)'),
    });
  }

  private unassign(): void {
    this.generation++;
    this.assigned = [];
    this.ends = undefined;
    clearInterval(this.readyTimer);
    this.partitionsGauge.set(0);
  }

  private async assign(partitions: number[]): Promise<void> {
    const generation = ++this.generation;
    clearInterval(this.readyTimer);
    while (generation === this.generation && !this.stopped) {
      try {
        const ends = await this.plane.ends();
        if (generation !== this.generation) return;
        this.assigned = partitions;
        this.ends = ends;
        this.logger.info({ partitions }, 'alerting: sending the shared firings of these control-plane partitions');
        // Wake the delivery loop once the control plane has caught up to the assignment.
        this.readyTimer = setInterval(() => {
          if (this.owned().length === 0 && partitions.length > 0) return;
          clearInterval(this.readyTimer);
          this.partitionsGauge.set(partitions.length);
          this.onChange();
        }, 100);
        this.readyTimer.unref();
        return;
      } catch (error) {
        this.logger.warn({ err: String(error) }, 'alerting: could not read the control-plane topic offsets: retrying');
        await sleep(500);
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
