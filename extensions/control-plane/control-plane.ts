// The shared control plane (issue #15): a compacted Kafka topic, `faultline.catalog`, that every
// node writes its control-plane changes to and consumes into its local catalog. One record per
// row, keyed by the row (`project:<id>`, `key:<id>`, `issue:<id>`, `alert_rule:<id>`,
// `artifact_bundle:<id>`) and holding its full state (or a deletion marker), so compaction keeps
// exactly what a node starting late needs: it replays the topic from the start. Applying is
// idempotent (projects are created once, key revocations stick, issue statuses and alert rules are
// last-writer-wins by the time of the change, deletions leave a marker in the catalog), so replays,
// redeliveries and a node's own records coming back are harmless.
//
// Durable outbox: a change is written to the catalog's control_outbox table in the transaction
// that makes it (Database.recordChange), sent in order, and deleted once Kafka acknowledged it; a
// node resends what is left at start. A change made while the broker is down survives a crash.
import { randomBytes } from 'node:crypto';
import kafkajs from 'kafkajs';
import type { Admin, Consumer, Producer } from 'kafkajs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from 'pino';
import type { AlertRules } from '../alerts/alert-rules.js';
import type { Alerts } from '../alerts/alerts.js';
import type { ArtifactStore } from '../artifacts/artifacts.js';
import type { Catalog } from '../catalog/catalog.js';
import { changeKey, type ComponentChange, type ControlChange } from './control-journal.js';
import type { Journal } from '../duckdb/journal.js';
import type { Database } from '../duckdb/database.js';
import type { IssueStates } from '../issues/issue-states.js';
import { rows } from '../duckdb/rows.js';
import { createKafka } from '../../src/kafka/connection.js';
import { applyAssigneeChange } from '../query/issue-triage.js';

const { CompressionTypes } = kafkajs;

export const CATALOG_SCHEMA = 1;
/** Records per produce request when the outbox is sent. */
const BATCH = 200;

/** What travels on the topic: a change, with the schema number and the node that made it. */
export type ControlRecord = ControlChange & { schema?: number; node?: string };

export interface ControlPlaneConfig {
  brokers: string[];
  topic: string;
}

/** The stores the control plane replicates. */
export interface ControlStores {
  database: Database;
  catalog: Catalog;
  issueStates: IssueStates;
  alertRules: AlertRules;
  /** Shared firings and their deliveries' outcomes. */
  alerts: Pick<Alerts, 'applyShared'>;
  artifacts: ArtifactStore;
}

export class ControlPlane implements Journal {
  private readonly producer: Producer;
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  private readonly node = randomBytes(6).toString('hex');
  private sending?: Promise<void>;
  /** Set when the outbox may hold rows the sending loop has not read yet. */
  private dirty = false;
  private stopped = false;
  private applied = 0;
  /** Appliers of component-kept rows by type, and what arrived for a type before its component registered. */
  private readonly componentAppliers = new Map<string, (change: ComponentChange) => Promise<void>>();
  private readonly componentPending = new Map<string, ComponentChange[]>();
  /** Per partition, the offset after the last record applied. */
  private readonly followed = new Map<number, number>();
  /** The last outbox sequence number given out: numbers only grow while the process runs (see record). */
  private lastSeq = 0n;
  /** Callers of sent(), each waiting for the outbox to hold nothing up to its number. */
  private sentWaiters: Array<{ seq: bigint; since: number; resolve: () => void }> = [];
  /** Reads of the outbox by the sending loop so far: a waiter counts only reads that began after it came. */
  private reads = 0;

  constructor(
    readonly config: ControlPlaneConfig,
    private readonly stores: ControlStores,
    private readonly logger: Logger,
  ) {
    const kafka = createKafka(
      { brokers: config.brokers, client_id: 'faultline-control-plane', connection_timeout_ms: 3000, request_timeout_ms: 10_000 },
      logger,
      { retries: 1_000_000, maxRetryTime: 5000 },
    );
    this.producer = kafka.producer({ allowAutoTopicCreation: true, idempotent: false });
    this.admin = kafka.admin();
    // A group of its own per process and no commits: every start reads the whole (compacted) topic.
    this.consumer = kafka.consumer({
      groupId: `faultline-control-plane-${this.node}`,
      sessionTimeout: 6000,
      rebalanceTimeout: 6000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 200,
      allowAutoTopicCreation: true,
    });
    stores.database.journal = this;
  }

  /** Records applied from the topic so far (operations and tests). */
  get appliedCount(): number {
    return this.applied;
  }

  /** Journal: the change joins the outbox, in the caller's transaction. */
  async record(connection: DuckDBConnection, change: ControlChange): Promise<void> {
    const record: ControlRecord = { ...change, schema: CATALOG_SCHEMA, node: this.node };
    // Never below a number given out before, even once the outbox emptied: sent() compares them.
    const result = await connection.runAndReadAll(
      'INSERT INTO control_outbox SELECT greatest(coalesce(max(seq), 0), ?) + 1, ?, ? FROM control_outbox RETURNING seq',
      [this.lastSeq, changeKey(change), JSON.stringify(record)],
    );
    const seq = BigInt(result.getRows()[0][0] as bigint);
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  /**
   * Resolves once every change recorded (and committed) before the call is in Kafka (acks -1);
   * rejects after `timeoutMs` (the broker away). What a worker waits for before the offsets of the
   * events behind a change may be committed.
   */
  sent(timeoutMs: number): Promise<void> {
    const seq = this.lastSeq;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.sentWaiters = this.sentWaiters.filter((w) => w !== waiter);
        reject(new Error(`control-plane changes not in Kafka within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        seq,
        since: this.reads,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.sentWaiters.push(waiter);
      this.flush();
    });
  }

  /** Wakes the callers of sent() whose changes are all out: read `read` of the outbox found nothing up to their number. */
  private sentThrough(read: number, firstPending: bigint | undefined): void {
    const done = this.sentWaiters.filter((w) => w.since < read && (firstPending === undefined || w.seq < firstPending));
    if (!done.length) return;
    this.sentWaiters = this.sentWaiters.filter((w) => !done.includes(w));
    for (const waiter of done) waiter.resolve();
  }

  /** Where each partition of the topic ends now (the offset its next record gets). */
  async ends(): Promise<Map<number, number>> {
    await this.admin.connect();
    const offsets = await this.admin.fetchTopicOffsets(this.config.topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  }

  /** Whether this node has applied every partition up to `ends` (from ends()). */
  reached(ends: Map<number, number>): boolean {
    for (const [partition, end] of ends) if ((this.followed.get(partition) ?? 0) < end) return false;
    return true;
  }

  /** Journal: what was recorded is committed, so it may go. */
  committed(): void {
    this.flush();
  }

  /** Journal: a component's applier, given what arrived for its type so far. */
  onComponentChange(type: string, apply: (change: ComponentChange) => Promise<void>): void {
    const pending = this.componentPending.get(type) ?? [];
    this.componentPending.delete(type);
    // Registered only once the backlog is applied, so later records keep their order behind it.
    void (async () => {
      for (const change of pending) await this.applyComponent(apply, change);
      this.componentAppliers.set(type, apply);
      for (const change of this.componentPending.get(type) ?? []) await this.applyComponent(apply, change);
      this.componentPending.delete(type);
    })();
  }

  private async applyComponent(apply: (change: ComponentChange) => Promise<void>, change: ComponentChange): Promise<void> {
    try {
      await apply(change);
      this.applied++;
    } catch (error) {
      this.logger.warn({ type: change.type, id: change.id, err: String(error) }, 'could not apply a control-plane record');
    }
  }

  async start(): Promise<void> {
    // In the background: a broker that is down delays replication, not the node's start.
    void (async () => {
      try {
        await this.consumer.connect();
        await this.consumer.subscribe({ topics: [this.config.topic], fromBeginning: true });
        await this.consumer.run({
          autoCommit: false,
          eachMessage: async ({ message, partition }) => {
            await this.applyMessage(message.value, partition, message.offset);
            this.followed.set(partition, Number(message.offset) + 1);
          },
        });
      } catch (error) {
        if (!this.stopped) this.logger.error({ err: String(error) }, 'the control plane cannot consume its topic');
      }
    })();
    this.flush(); // what an earlier run left in the outbox
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.stores.database.journal === this) this.stores.database.journal = undefined;
    // What is not sent yet stays in the outbox for the next start: no need to wait for a broker that is down.
    await Promise.race([this.sending?.catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]);
    await this.consumer.disconnect().catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }

  private async applyMessage(value: Buffer | null, partition: number, offset: string): Promise<void> {
    if (!value) return; // a tombstone
    let record: ControlRecord;
    try {
      record = JSON.parse(value.toString('utf8')) as ControlRecord;
    } catch {
      this.logger.warn({ topic: this.config.topic, offset }, 'skipped an unreadable control-plane record');
      return;
    }
    await this.apply(record, partition);
  }

  private async apply(record: ControlRecord, partition: number): Promise<void> {
    if (record.schema !== undefined && record.schema > CATALOG_SCHEMA) {
      this.logger.warn({ schema: record.schema }, 'skipped a control-plane record of a newer schema');
      return;
    }
    const { catalog, issueStates, alertRules, alerts, artifacts, database } = this.stores;
    try {
      if (record.kind === 'issue_status') await issueStates.applyStatus(record);
      else if (record.kind === 'issue_opened') await issueStates.applyOpened(record);
      else if (record.kind === 'alert_firing' || record.kind === 'alert_delivery') await alerts.applyShared(record, partition);
      else if (record.kind === 'issue_assignee') await applyAssigneeChange(database, record);
      else if (record.kind === 'project' || record.kind === 'key') await catalog.apply(record);
      else if (record.kind === 'artifact_bundle') await artifacts.apply(record);
      else if (record.kind === 'issue_redirect') await issueStates.redirects.apply(record);
      else if (record.kind === 'issue_activity') await issueStates.activity.apply(record.activity);
      else if (record.kind === 'alert_rule') {
        // An older change than this node holds: publish the newer state again, so that it is what compaction keeps.
        const newer = await alertRules.apply(record);
        if (newer) await database.write((c) => database.recordChange(c, newer));
      } else if (record.kind === 'component') {
        const apply = this.componentAppliers.get(record.type);
        if (apply) await this.applyComponent(apply, record);
        else if (this.componentPending.has(record.type)) this.componentPending.get(record.type)!.push(record);
        else this.componentPending.set(record.type, [record]);
        return;
      } else return;
      this.applied++;
    } catch (error) {
      this.logger.warn({ kind: record.kind, err: String(error) }, 'could not apply a control-plane record');
    }
  }

  private flush(): void {
    this.dirty = true;
    this.sending ??= this.send().finally(() => {
      this.sending = undefined;
    });
  }

  /** Sends the outbox in order until it is empty, deleting what Kafka acknowledged. */
  private async send(): Promise<void> {
    while (!this.stopped) {
      this.dirty = false;
      let pending: Array<{ seq: bigint; key: string; value: string }>;
      const read = ++this.reads;
      try {
        pending = rows(await this.stores.database.reader().runAndReadAll(`SELECT seq, key, value FROM control_outbox ORDER BY seq LIMIT ${BATCH}`));
      } catch (error) {
        if (!this.stopped) this.logger.warn({ err: String(error) }, 'could not read the control-plane outbox');
        return;
      }
      this.sentThrough(read, pending[0]?.seq === undefined ? undefined : BigInt(pending[0].seq));
      if (!pending.length) {
        if (this.dirty) continue;
        return;
      }
      try {
        await this.producer.connect();
        await this.producer.send({
          topic: this.config.topic,
          acks: -1,
          compression: CompressionTypes.GZIP,
          messages: pending.map(({ key, value }) => ({ key, value })),
        });
        const last = pending[pending.length - 1].seq;
        await this.stores.database.write((c) => c.run('DELETE FROM control_outbox WHERE seq <= ?', [last]));
      } catch (error) {
        if (this.stopped) return;
        this.logger.warn({ err: String(error), pending: pending.length }, 'control-plane changes not in Kafka yet: retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
}
