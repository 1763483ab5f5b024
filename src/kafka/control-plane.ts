// The shared control plane (issue #15): a compacted Kafka topic, `faultline.catalog`, that every
// node writes its control-plane changes to and consumes into its local catalog. One record per
// row, keyed by the row (`project:<id>`, `key:<id>`, `issue:<id>`) and holding its full state, so
// compaction keeps exactly what a node starting late needs: it replays the topic from the start.
// Applying is idempotent (projects are created once, key revocations stick, issue statuses are
// last-writer-wins by the time of the change), so replays, redeliveries and a node's own records
// coming back are harmless.
import { randomBytes } from 'node:crypto';
import type { Consumer, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { Catalog, CatalogChange } from '../storage/catalog.js';
import type { IssueStates, StatusChange } from '../storage/issue-states.js';
import { createKafka } from './connection.js';

export const CATALOG_SCHEMA = 1;

/** What travels on the topic: a catalog change or an issue status, with the schema number. */
export type ControlRecord = (CatalogChange | ({ kind: 'issue_status' } & StatusChange)) & { schema?: number; node?: string };

export interface ControlPlaneConfig {
  brokers: string[];
  topic: string;
}

export class ControlPlane {
  private readonly producer: Producer;
  private readonly consumer: Consumer;
  private readonly node = randomBytes(6).toString('hex');
  /** Records not yet acknowledged by Kafka, in the order they were made; retried until they are. */
  private readonly outbox: ControlRecord[] = [];
  private sending?: Promise<void>;
  private stopped = false;
  private applied = 0;

  constructor(
    private readonly config: ControlPlaneConfig,
    private readonly catalog: Catalog,
    private readonly issueStates: IssueStates,
    private readonly logger: Logger,
  ) {
    const kafka = createKafka(
      { brokers: config.brokers, client_id: 'faultline-control-plane', connection_timeout_ms: 3000, request_timeout_ms: 10_000 },
      logger,
      { retries: 1_000_000, maxRetryTime: 5000 },
    );
    this.producer = kafka.producer({ allowAutoTopicCreation: true, idempotent: false });
    // A group of its own per process and no commits: every start reads the whole (compacted) topic.
    this.consumer = kafka.consumer({
      groupId: `faultline-control-plane-${this.node}`,
      sessionTimeout: 6000,
      rebalanceTimeout: 6000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 200,
      allowAutoTopicCreation: true,
    });
    catalog.onChange((change) => this.publish(change));
    issueStates.onStatusChange((change) => this.publish({ kind: 'issue_status', ...change }));
  }

  /** Records applied from the topic so far (operations and tests). */
  get appliedCount(): number {
    return this.applied;
  }

  async start(): Promise<void> {
    // In the background: a broker that is down delays replication, not the node's start.
    void (async () => {
      try {
        await this.consumer.connect();
        await this.consumer.subscribe({ topics: [this.config.topic], fromBeginning: true });
        await this.consumer.run({
          autoCommit: false,
          eachMessage: async ({ message }) => {
            if (!message.value) return; // a tombstone
            let record: ControlRecord;
            try {
              record = JSON.parse(message.value.toString('utf8')) as ControlRecord;
            } catch {
              this.logger.warn({ topic: this.config.topic, offset: message.offset }, 'skipped an unreadable control-plane record');
              return;
            }
            await this.apply(record);
          },
        });
      } catch (error) {
        if (!this.stopped) this.logger.error({ err: String(error) }, 'the control plane cannot consume its topic');
      }
    })();
    this.flush();
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.sending?.catch(() => undefined);
    await this.consumer.disconnect().catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
  }

  private async apply(record: ControlRecord): Promise<void> {
    if (record.schema !== undefined && record.schema > CATALOG_SCHEMA) {
      this.logger.warn({ schema: record.schema }, 'skipped a control-plane record of a newer schema');
      return;
    }
    try {
      if (record.kind === 'issue_status') await this.issueStates.applyStatus(record);
      else if (record.kind === 'project' || record.kind === 'key') await this.catalog.apply(record);
      this.applied++;
    } catch (error) {
      this.logger.warn({ kind: record.kind, err: String(error) }, 'could not apply a control-plane record');
    }
  }

  private publish(change: ControlRecord): void {
    this.outbox.push({ ...change, schema: CATALOG_SCHEMA, node: this.node });
    this.flush();
  }

  private flush(): void {
    this.sending ??= (async () => {
      while (this.outbox.length && !this.stopped) {
        const records = this.outbox.slice(0, 500);
        try {
          await this.producer.connect();
          await this.producer.send({
            topic: this.config.topic,
            acks: -1,
            messages: records.map((record) => ({ key: recordKey(record), value: JSON.stringify(record) })),
          });
          this.outbox.splice(0, records.length);
        } catch (error) {
          this.logger.warn({ err: String(error), pending: this.outbox.length }, 'control-plane changes not in Kafka yet: retrying');
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })().finally(() => {
      this.sending = undefined;
      if (this.outbox.length && !this.stopped) this.flush();
    });
  }
}

/** The compaction key: one per row. */
export function recordKey(record: ControlRecord): string {
  if (record.kind === 'project') return `project:${record.project.id}`;
  if (record.kind === 'key') return `key:${record.key.id}`;
  return `issue:${record.id}`;
}
