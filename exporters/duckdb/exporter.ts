// The duckdb exporter: events and spans in the service's DuckDB file (rows, and issue aggregates
// folded as events are stored), their documents in the DocStore beside it (<data_dir>/docs). It
// owns those tables (migrations.ts), serves reads from them (read-source.ts) and expires them.
import type { ComponentSettings, Exporter, ExpiryResult } from '../../src/engine/component.js';
import { signalBatch, type Item, type Signal } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { ReplaySegment } from '../../src/records/replay.js';
import type { Span } from '../../src/records/span.js';
import type { Database } from '../../extensions/duckdb/database.js';
import { migrate } from '../../extensions/duckdb/migrate.js';
import type { ReadSource } from '../../src/engine/read-source.js';
import type { DuckdbConfig } from './config.js';
import { DEFAULT_LINGER } from './commit-linger.js';
import { DocStore, type DocKey } from './docs.js';
import { eventIntake } from './events-intake.js';
import { expire } from './expiry.js';
import { Intake, type Accepted, type IntakeKind } from './intake.js';
import { closeAppenders } from './kept-appenders.js';
import { DUCKDB_MIGRATIONS } from './migrations.js';
import { DuckdbReadSource } from './read-source.js';
import { replayIntake, replayKey } from './replays-intake.js';
import { spanIntake } from './spans-intake.js';
import { spanBatchIntake, toSpanBatches, type SpanBatch } from './span-batch.js';
import { join } from 'node:path';
import { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { databaseOf } from '../../extensions/duckdb/index.js';
import { quarantineOf } from '../../extensions/quarantine/index.js';

export class DuckdbExporter implements Exporter {
  private readonly db: Database;
  private store?: {
    docs: DocStore;
    events: Intake<ErrorEvent>;
    /** Spans stored one document per span (the earlier layout, span_documents: per_span). */
    spans: Intake<Span>;
    spanBatches: Intake<SpanBatch>;
    replays: Intake<ReplaySegment>;
  };
  private readonly source: DuckdbReadSource;
  /** Replay segments' events, compressed, under <data_dir>/replays. */
  private readonly blobs: SegmentBlobs;

  constructor(private readonly settings: ComponentSettings<DuckdbConfig>) {
    this.db = databaseOf(settings.host);
    this.blobs = new SegmentBlobs(join(this.db.dataDir, 'replays'));
    this.source = new DuckdbReadSource(
      settings.id.text,
      () => this.opened().docs,
      () => this.settled(),
      this.blobs,
    );
  }

  async start(): Promise<void> {
    const docs = DocStore.open(this.db.dataDir, { ...DEFAULT_LINGER, lingerMs: this.settings.config.durability.linger_ms });
    try {
      await migrate(this.db, 'duckdb', DUCKDB_MIGRATIONS, docs);
    } catch (error) {
      await docs.close();
      throw error;
    }
    const max = this.settings.config.max_batch_items;
    const { logger } = this.settings.host;
    this.store = {
      docs,
      events: new Intake(eventIntake, this.db, docs, max, 4 * max, this.settings.config.max_backlog_bytes, logger, (items, reason) =>
        this.quarantine('events', eventIntake, items, reason),
      ),
      spans: new Intake(spanIntake, this.db, docs, max, 4 * max, this.settings.config.max_backlog_bytes, logger, (items, reason) =>
        this.quarantine('traces', spanIntake, items, reason),
      ),
      spanBatches: new Intake(spanBatchIntake, this.db, docs, max, 4 * max, this.settings.config.max_backlog_bytes, logger, (items, reason) =>
        this.quarantine('traces', spanBatchIntake, items, reason),
      ),
      replays: new Intake(replayIntake, this.db, docs, max, 4 * max, this.settings.config.max_backlog_bytes, logger, (items, reason) =>
        this.quarantine('replays', replayIntake, items, reason),
      ),
    };
    await this.store.events.recover();
    await this.store.spans.recover();
    await this.store.spanBatches.recover();
    await this.store.replays.recover();
  }

  export(signal: Signal, items: Item[]): Promise<void> {
    const { events, spans, spanBatches } = this.opened();
    const batch = signalBatch(signal, items);
    if (batch.signal === 'events') return events.accept(batch.items);
    if (batch.signal === 'traces')
      return this.settings.config.span_documents === 'per_span' ? spans.accept(batch.items) : spanBatches.accept(toSpanBatches(batch.items));
    return this.exportReplays(batch.items);
  }

  /**
   * Each segment's events go to disk first (compressed, synced), then its metadata through the
   * intake (DocStore, then DuckDB): a crash in between leaves an unreferenced blob, never a row
   * without its events. A segment already stored writes nothing.
   */
  private async exportReplays(items: Item<ReplaySegment>[]): Promise<void> {
    const { docs, replays } = this.opened();
    await Promise.all(
      items.map(async ({ tenant, data }) => {
        if (docs.has('replays', replayKey(tenant, data.replay_id, data.segment_id))) return;
        const blob = await this.blobs.put(data.events_json);
        data.blob = blob.sha;
        data.stored_bytes = blob.bytes;
      }),
    );
    // Copies (already stored) carry no blob of their own: the intake finds them stored.
    for (const { tenant, data } of items) {
      if (data.blob !== undefined) continue;
      const stored = docs.get('replays', replayKey(tenant, data.replay_id, data.segment_id));
      if (stored) Object.assign(data, { blob: (JSON.parse(stored) as ReplaySegment).blob });
    }
    return replays.accept(items);
  }

  /** The DocStore (operations and tests). */
  documents(): DocStore {
    return this.opened().docs;
  }

  readSource(): ReadSource {
    return this.source;
  }

  async expire(firstKept: Partial<Record<Signal, string>>): Promise<ExpiryResult> {
    await this.settled(); // acknowledged items still on their way to DuckDB expire too
    return expire(this.db, this.opened().docs, this.blobs, firstKept);
  }

  async shutdown(): Promise<void> {
    const store = this.store;
    if (!store) return;
    await Promise.all([store.events.shutdown(), store.spans.shutdown(), store.spanBatches.shutdown(), store.replays.shutdown()]);
    await this.db.write(async (connection) => closeAppenders(connection));
    await store.docs.close();
    this.store = undefined;
  }

  /** Moves refused items to the service's quarantine, documents and all, out of the DocStore. */
  private async quarantine<T>(signal: Signal, kind: IntakeKind<T>, items: Array<Accepted<T> & { key: DocKey }>, reason: string): Promise<void> {
    const { docs } = this.opened();
    await quarantineOf(this.settings.host).add(
      items.map(({ tenant, data, key }) => ({
        component: this.settings.id.text,
        signal,
        dataset: tenant.dataset,
        project_id: tenant.projectId,
        item_key: key.slice(2).join('/'),
        reason,
        doc: documentJson(kind, docs.get(kind.kind, key) ?? kind.document(data)),
      })),
    );
    await docs.remove(
      kind.kind,
      items.map(({ key }) => key),
    );
  }

  private opened(): NonNullable<DuckdbExporter['store']> {
    if (!this.store) throw new Error(`exporter ${this.settings.id.text} is not started`);
    return this.store;
  }

  private async settled(): Promise<void> {
    if (this.store)
      await Promise.all([this.store.events.settled(), this.store.spans.settled(), this.store.spanBatches.settled(), this.store.replays.settled()]);
  }
}

/** The document JSON of a stored value (events may be stored as their body and a derived record). */
function documentJson<T>(kind: IntakeKind<T>, stored: string | Buffer): string {
  const text = typeof stored === 'string' ? stored : stored.toString('utf8');
  return kind.json?.(text) ?? text;
}
