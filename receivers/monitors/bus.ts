// Monitors across the Kafka roles: a topic (`faultline.monitors`) keyed by monitor, so that each
// monitor's records are in one partition, in order. Any node puts a check-in it takes on the topic
// (acknowledged once Kafka has it); the workers of one consumer group share the partitions, and the
// worker a monitor's partition is assigned to decides for it — applies its check-ins, records its
// missed and timed-out runs, runs its uptime checks and sends its failure events — and puts the
// resulting state, with the check-ins and checks it wrote, on the same partition. Every node follows
// the whole topic (a group of its own, from the start, never committing) into its own tables, so
// reads answer anywhere and a worker given a partition starts from the state its last owner left.
import { randomBytes, randomUUID } from 'node:crypto';
import kafkajs from 'kafkajs';
import type { Admin, Consumer, Kafka, PartitionMetadata, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import { errors } from '../../src/http/errors.js';
import { createKafka } from '../../src/kafka/connection.js';
import { stayInGroup } from '../../src/kafka/group-member.js';
import type { MonitorsKafkaConfig } from './config.js';
import type { CheckinInput } from './input.js';
import type { Monitors } from './monitors.js';
import { monitorId, type Checkin, type Monitor, type MonitorState, type UptimeCheck } from '../../src/storage/monitors.js';

const { CompressionTypes, Partitioners } = kafkajs;

export const BUS_SCHEMA = 1;

/** A check-in as a node took it, for the deciding worker. */
interface CheckinRecord {
  schema: number;
  type: 'checkin';
  monitor: string;
  input: CheckinInput & { check_in_id: string };
  received_at: number;
}

/** What the deciding worker made of a change, for every node. */
interface StateRecord {
  schema: number;
  type: 'state';
  monitor: string;
  state: MonitorState;
  checkins: Checkin[];
  checks: UptimeCheck[];
}

type BusRecord = CheckinRecord | StateRecord;

/** How long a check-in waits for its monitor's definition, which the control plane may bring a moment later. */
const DEFINITION_WAIT_MS = 10_000;

export class MonitorBus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly follower: Consumer;
  /** The current member of the deciders' group (a new one after a crash kafkajs does not restart from). */
  private decider?: Consumer;
  private readonly newDecider?: () => Consumer;
  private readonly admin: Admin;
  private readonly partitioner = Partitioners.DefaultPartitioner();
  private stopped = false;
  /** Per partition, the offset after the last record this node's follower applied. */
  private readonly followed = new Map<number, number>();
  /** The partitions this node decides for, with the topic's end when they were assigned: ready once followed that far. */
  private assigned = new Map<number, number>();
  private partitionCount = 0;
  /** Bumped at every rebalance: an assignment computed for an older generation is dropped. */
  private generation = 0;
  /** The group last confirmed this member (joined, or a heartbeat answered): past a session timeout, it may have been replaced. */
  private confirmedAt = 0;

  constructor(
    private readonly config: MonitorsKafkaConfig,
    private readonly monitors: Monitors,
    private readonly logger: Logger,
    private readonly partitionsGauge?: Gauge,
  ) {
    this.kafka = createKafka(
      { brokers: config.brokers, client_id: 'faultline-monitors', connection_timeout_ms: 3000, request_timeout_ms: config.request_timeout_ms },
      logger,
      { retries: 1_000_000, maxRetryTime: 5000 },
    );
    this.producer = this.kafka.producer({ allowAutoTopicCreation: true, idempotent: config.idempotent, createPartitioner: Partitioners.DefaultPartitioner });
    this.admin = this.kafka.admin();
    const group = { sessionTimeout: config.session_timeout_ms, rebalanceTimeout: config.session_timeout_ms, heartbeatInterval: config.heartbeat_interval_ms };
    const waits = { maxWaitTimeInMs: Math.min(config.fetch_max_wait_ms, Math.floor(config.session_timeout_ms / 3)), allowAutoTopicCreation: true };
    this.follower = this.kafka.consumer({ groupId: `${config.group_id}-follow-${randomBytes(6).toString('hex')}`, ...group, ...waits });
    if (config.decide) this.newDecider = () => this.kafka.consumer({ groupId: config.group_id, ...group, ...waits });
  }

  /** Whether this node decides for the monitor now: its partition is assigned here and followed up to where it was when assigned. */
  owns(monitor: Monitor): boolean {
    if (!this.partitionCount) return false;
    return this.ready(this.partitionOf(monitorId(monitor)));
  }

  /** Puts a check-in on the topic; resolves once Kafka has it (acks -1), throws if it cannot. */
  async sendCheckin(monitor: Monitor, input: CheckinInput & { check_in_id: string }, receivedAt: number): Promise<void> {
    await this.send({ schema: BUS_SCHEMA, type: 'checkin', monitor: monitorId(monitor), input, received_at: receivedAt });
  }

  /** The deciding worker's account of a change, for the other nodes (and the next owner). */
  async sendState(monitor: Monitor, rows: { checkins: Checkin[]; checks: UptimeCheck[] }): Promise<void> {
    const { status, last_checkin_at, next_expected_at, consecutive_failures, issue_id } = monitor;
    const state = { status, last_checkin_at, next_expected_at, consecutive_failures, issue_id };
    await this.send({ schema: BUS_SCHEMA, type: 'state', monitor: monitorId(monitor), state, ...rows });
  }

  async start(): Promise<void> {
    // In the background, as the kafka receiver does: a broker that is down delays monitors, not the node's start.
    void this.ensureTopic().then(() => {
      if (this.stopped) return;
      void this.follow();
      if (this.newDecider) void this.decideUntilStopped(this.newDecider);
    });
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.unassign();
    await this.decider?.disconnect().catch(() => undefined);
    await this.follower.disconnect().catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }

  private async send(record: BusRecord): Promise<void> {
    await this.producer.connect();
    await this.producer.send({
      topic: this.config.topic,
      acks: -1,
      timeout: this.config.request_timeout_ms,
      compression: CompressionTypes.GZIP,
      messages: [{ key: record.monitor, value: JSON.stringify(record) }],
    });
  }

  /** The follower: every record of every partition, in order, from the start. */
  private async follow(): Promise<void> {
    const consumer = this.follower;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.config.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ message, partition }) => {
          const record = this.parse(message.value, partition, message.offset);
          if (record?.type === 'state' && !this.ready(partition)) await this.applyState(record);
          this.followed.set(partition, Number(message.offset) + 1);
          this.report();
        },
      });
    } catch (error) {
      if (!this.stopped) this.logger.error({ err: String(error) }, 'monitors: cannot follow the monitors topic');
    }
  }

  /**
   * The decider: the check-ins of the partitions this worker was given, each applied once the
   * partition is followed up to where its last owner left it, and committed after (at-least-once:
   * a check-in carries its id, so applying it again changes nothing).
   */
  /** Decides as a member of the group until the node stops, joining again after a crash kafkajs does not restart from. */
  private decideUntilStopped(newDecider: () => Consumer): Promise<void> {
    return stayInGroup({
      newConsumer: () => {
        const decider = (this.decider = newDecider());
        decider.on(decider.events.REBALANCING, () => this.unassign());
        decider.on(decider.events.STOP, () => this.unassign());
        decider.on(decider.events.GROUP_JOIN, ({ payload }) => {
          this.confirmedAt = Date.now();
          void this.assign(payload.memberAssignment[this.config.topic] ?? []);
        });
        decider.on(decider.events.HEARTBEAT, () => {
          this.confirmedAt = Date.now();
          this.report();
        });
        return decider;
      },
      start: (decider) => this.decide(decider),
      stopping: () => this.stopped,
      crashed: () => this.unassign(),
      rejoining: (error) => this.logger.warn({ err: String(error) }, 'monitors: the decider left the group: joining again'),
      failed: (error) => this.logger.error({ err: String(error) }, 'monitors: cannot consume the monitors topic as a decider: retrying'),
    });
  }

  /** Joins and starts consuming. */
  private async decide(consumer: Consumer): Promise<void> {
    await consumer.connect();
    await consumer.subscribe({ topics: [this.config.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 500,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }) => {
        const active = () => isRunning() && !isStale() && !this.stopped;
        for (const message of batch.messages) {
          if (!active()) return;
          const record = this.parse(message.value, batch.partition, message.offset);
          if (record?.type === 'checkin') {
            // A rebalance meanwhile makes heartbeat() throw: kafkajs rejoins, and the check-in stays uncommitted.
            while (!this.ready(batch.partition)) {
              if (!active()) return;
              await sleep(100);
              await heartbeat();
            }
            let monitor = this.find(record.monitor);
            for (const deadline = Date.now() + DEFINITION_WAIT_MS; !monitor && Date.now() < deadline && active(); monitor = this.find(record.monitor)) {
              await sleep(100);
              await heartbeat();
            }
            if (!active()) return;
            if (monitor?.type === 'cron') await this.monitors.checkIn(monitor, record.input, record.received_at);
            else this.logger.warn({ monitor: record.monitor }, 'monitors: a check-in for a cron monitor this node does not know: skipped');
          }
          resolveOffset(message.offset);
          await commitOffsetsIfNecessary();
          await heartbeat();
        }
      },
    });
  }

  private parse(value: Buffer | null, partition: number, offset: string): BusRecord | undefined {
    try {
      const record = value ? (JSON.parse(value.toString('utf8')) as BusRecord) : undefined;
      if (record && typeof record === 'object' && (record.schema ?? 0) <= BUS_SCHEMA && typeof record.monitor === 'string') return record;
    } catch {
      // logged below
    }
    this.logger.warn({ topic: this.config.topic, partition, offset }, 'monitors: skipped an unreadable record');
    return undefined;
  }

  /** A state record of a monitor another node decides for. */
  private async applyState(record: StateRecord): Promise<void> {
    const monitor = this.find(record.monitor);
    if (!monitor) return; // deleted, or its definition not here yet: the next state record brings it up to date
    const tenant = { dataset: monitor.dataset, orgId: monitor.org_id, projectId: monitor.project_id };
    await this.monitors.serialize(tenant, monitor.slug, async () => {
      const latest = this.find(record.monitor);
      if (latest) await this.monitors.store.applyState(latest, record.state, record.checkins, record.checks);
    });
  }

  private find(id: string): Monitor | undefined {
    const [dataset, projectId, slug] = id.split('/');
    if (dataset !== 'live' && dataset !== 'test') return undefined;
    return this.monitors.store.get(dataset, projectId ?? '', slug ?? '');
  }

  private ready(partition: number): boolean {
    const end = this.assigned.get(partition);
    // A member that has not heard from the group for a session may have been dropped from it (a
    // long pause): it stops deciding until it hears again, rather than deciding beside its successor.
    const confirmed = Date.now() - this.confirmedAt < this.config.session_timeout_ms;
    return end !== undefined && confirmed && (this.followed.get(partition) ?? 0) >= end;
  }

  private partitionOf(id: string): number {
    const partitionMetadata: PartitionMetadata[] = Array.from({ length: this.partitionCount }, (_, partitionId) => ({
      partitionErrorCode: 0,
      partitionId,
      leader: 0,
      replicas: [0],
      isr: [0],
    }));
    return this.partitioner({ topic: this.config.topic, partitionMetadata, message: { key: id, value: null } });
  }

  private unassign(): void {
    this.generation++;
    this.assigned = new Map();
    this.report();
  }

  private report(): void {
    this.partitionsGauge?.set([...this.assigned.keys()].filter((p) => this.ready(p)).length);
  }

  /** A new assignment: where each partition ends now (what the follower must have applied before this node decides there). */
  private async assign(partitions: number[]): Promise<void> {
    const generation = ++this.generation;
    // Until the offsets are read this node decides nothing; a broker slow to answer is asked again.
    while (generation === this.generation && !this.stopped) {
      try {
        await this.admin.connect();
        const offsets = await this.admin.fetchTopicOffsets(this.config.topic);
        if (generation !== this.generation) return;
        this.partitionCount = offsets.length;
        const ends = new Map(offsets.map((o) => [o.partition, Number(o.high)]));
        this.assigned = new Map(partitions.map((p) => [p, ends.get(p) ?? 0]));
        this.report();
        this.logger.info({ partitions }, 'monitors: deciding for the monitors of these partitions');
        return;
      } catch (error) {
        this.logger.warn({ err: String(error) }, 'monitors: could not read the topic offsets: retrying');
        await sleep(500);
      }
    }
  }

  /**
   * Has the topic created (by the broker's auto-creation) before any consumer joins: a group that
   * joined before the topic had partitions would be assigned none of them until its next metadata refresh.
   */
  private async ensureTopic(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.admin.connect();
        const { topics } = await this.admin.fetchTopicMetadata({ topics: [this.config.topic] });
        if ((topics[0]?.partitions.length ?? 0) > 0) return;
      } catch (error) {
        this.logger.debug({ err: String(error) }, 'monitors: the topic is not there yet');
      }
      await sleep(500);
    }
  }
}

/** A check-in taken by this node: applied here, or with Kafka put on the topic for the node that decides; resolves with its id. */
export async function takeCheckin(monitors: Monitors, bus: MonitorBus | undefined, monitor: Monitor, input: CheckinInput, now: number): Promise<string> {
  if (!bus) return (await monitors.checkIn(monitor, input)).id;
  const id = input.check_in_id ?? randomUUID().replace(/-/g, '');
  await bus.sendCheckin(monitor, { ...input, check_in_id: id }, now).catch((error: unknown) => {
    throw errors.unavailable(`the check-in is not in Kafka yet: ${error instanceof Error ? error.message : String(error)}`);
  });
  return id;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
