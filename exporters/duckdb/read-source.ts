// What the duckdb exporter serves reads from: its `events`, `spans` and `issues` tables, with the
// documents of their rows in the DocStore (the tables' doc column is '').
import type { Signal } from '../../src/engine/item.js';
import type { DateSelection, ReadSource, Row } from '../../src/engine/read-source.js';
import type { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { storedEventJson } from '../../src/records/event-body.js';
import { spanKey, type DocStore } from './docs.js';
import { parseSpanRef, SpanBatchCache } from './span-batch.js';

/**
 * The tables themselves, so their indexes and zone maps serve the queries. The events table lacks
 * the read layout's title and culprit (they are in the documents): aggregates over it alone never
 * need them (its issues table keeps them), and a merge with other sources is by column name.
 */
const TABLES: Partial<Record<Signal, string>> = { events: 'events', traces: 'spans', replays: 'replay_segments' };

export class DuckdbReadSource implements ReadSource {
  readonly signals: readonly Signal[] = ['events', 'traces', 'replays'];
  readonly keyed: readonly Signal[] = ['events'];
  private readonly spanBatches = new SpanBatchCache((key) => this.docs().get('span_batches', key));

  constructor(
    readonly id: string,
    private readonly docs: () => DocStore,
    private readonly settle: () => Promise<void>,
    private readonly blobs: SegmentBlobs,
  ) {}

  relation(signal: Signal, _projectIds: string[], _selection: DateSelection): string {
    const table = TABLES[signal];
    if (!table) throw new Error(`the duckdb exporter does not store ${signal}`);
    return table;
  }

  document(signal: Signal, row: Row): string | undefined {
    const dataset = String(row.dataset);
    const project = String(row.project_id);
    if (signal === 'events') {
      const stored = this.docs().get('events', [dataset, project, String(row.id)]);
      return stored === undefined ? undefined : storedEventJson(stored);
    }
    if (signal === 'traces') {
      // Spans stored in batches carry a reference to theirs; the earlier layout's, nothing.
      const ref = parseSpanRef(row.doc);
      if (ref) return this.spanBatches.span(dataset, project, ref);
      return this.docs().get('traces', spanKey(dataset, project, BigInt(row.start_ns as bigint), String(row.trace_id), String(row.span_id)));
    }
    if (signal === 'replays') return this.docs().get('replays', [dataset, project, String(row.replay_id), Number(row.segment_id)]);
    return undefined;
  }

  segment(row: Row): Promise<Buffer | undefined> {
    return this.blobs.gzipped(String(row.blob));
  }

  issues(): string {
    return `(SELECT id, dataset, project_id, title, culprit, type, value, level, first_seen, last_seen, count,
      first_release, last_release, last_received FROM issues)`;
  }

  settled(): Promise<void> {
    return this.settle();
  }
}
