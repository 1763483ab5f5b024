// Spans stored in bulk: the spans of one accepted batch (one OTLP or /v1/traces request's spans of
// one project) are one document in the DocStore's `span_batches`, under a key that grows with time
// (dataset, project, newest span start in ms, batch id), so a request costs one put at the end of
// the B-tree instead of one put per span at a random place (the trace id within the minute). The
// document carries a span index, so one span's JSON is sliced out without parsing the others, and
// each span's DuckDB row holds a reference to it (`@sb/<newest ms>/<batch id>/<index>`, in the
// `doc` column, which spans stored by the earlier layout keep empty).
//
// The document is text. What is written now (`spanbatch2`) stores what the spans share once: the
// part of a span's JSON from its resource attributes' value to its scope's end (spanSharedPart),
// the same for every span of an OTLP resource and scope; each span is a compact JSON array of its
// own fields (span-compact.ts), its document made from it when read:
//   line 1: `spanbatch2 <newest ms> <batch id> <received_at>`
//   line 2: the offset of each span's array in the body, comma-separated
//   line 3: the end of each shared part in the parts' text, comma-separated
//   rest:   the shared parts' text, then the body: the spans' arrays one after the other
// The first layout (`spanbatch1`), still read:
//   line 1: `spanbatch1 <newest ms> <batch id> <received_at>`
//   line 2: the offset of each span's JSON in the body, comma-separated
//   rest:   the body, a JSON array of the spans' documents (what toSpanDocument makes)
//
// Duplicates: with no per-span entry in the DocStore, a span's identity (dataset, project, trace
// id, span id, start) is checked where the rows go in, against the spans table and the rest of the
// batch being indexed (indexing is one loop, so nothing in between is missed). A repeated request
// stores its batch document again, but its spans get no second row and read once.
import type { DuckDBAppender, DuckDBConnection, DuckDBTimestampValue } from '@duckdb/node-api';
import type { Item, Tenant } from '../../src/engine/item.js';
import { spanSharedPart } from '../../src/records/span-document.js';
import { appendSpanColumns, receivedAtValue, spanColumns, type SpanColumns } from '../../src/records/span-row.js';
import type { Span } from '../../src/records/span.js';
import type { DocKey } from './docs.js';
import type { Accepted, IntakeKind } from './intake.js';
import { appendRows, SPAN_APPEND_SLICE_ROWS } from './kept-appenders.js';
import { compactSpanColumns, compactSpanDocument, compactSpanJson } from './span-compact.js';

const MAGIC = 'spanbatch2';
const MAGIC_V1 = 'spanbatch1';

/** One batch's spans: the rows indexing needs, and (until it is durable) the document. */
export interface SpanBatch {
  newestMs: number;
  id: string;
  receivedAt: string;
  rows: SpanColumns[];
  /** As UTF-8 (batchDocument); dropped once durable (slim): the queue holds the rows only. */
  doc?: string | Buffer;
}

/** Where one span's document is: its batch and its position there. */
export interface SpanRef {
  newestMs: number;
  id: string;
  index: number;
}

let counter = 0;
/** Unique within a data directory: the time of the batch, then a counter. */
function newBatchId(): string {
  return `${Date.now().toString(36)}.${(counter++).toString(36)}`;
}

export function spanBatchKey(dataset: string, projectId: string, newestMs: number, id: string): DocKey {
  return [dataset, projectId, newestMs, id];
}

export function spanRefText(newestMs: number, id: string, index: number): string {
  return `@sb/${newestMs}/${id}/${index}`;
}

const REF = /^@sb\/(\d{1,16})\/([0-9a-z.]{1,40})\/(\d{1,9})$/;

export function parseSpanRef(doc: unknown): SpanRef | undefined {
  if (typeof doc !== 'string' || doc.length > 80) return undefined;
  const match = REF.exec(doc);
  return match ? { newestMs: Number(match[1]), id: match[2], index: Number(match[3]) } : undefined;
}

/**
 * The items of one export as batches: one per tenant and time of receipt (a request's spans share
 * both). Each span's document is made here, once, into its batch's document.
 */
export function toSpanBatches(items: Item<Span>[]): Item<SpanBatch>[] {
  const groups = new Map<string, { item: Item<Span>; spans: Span[] }>();
  for (const item of items) {
    const { tenant } = item;
    const group = `${tenant.dataset}\0${tenant.projectId}\0${item.data.received_at}`;
    const found = groups.get(group);
    if (found) found.spans.push(item.data);
    else groups.set(group, { item, spans: [item.data] });
  }
  const out: Item<SpanBatch>[] = [];
  for (const { item, spans } of groups.values()) {
    let newestNs = 0n;
    for (const span of spans) if (span.start_time_unix_nano > newestNs) newestNs = span.start_time_unix_nano;
    const newestMs = Number(newestNs / 1_000_000n);
    const id = newBatchId();
    const receivedAt = spans[0].received_at;
    out.push({
      tenant: item.tenant,
      receivedAt: item.receivedAt,
      size: item.size * spans.length,
      data: { newestMs, id, receivedAt, rows: spans, doc: batchDocument(newestMs, id, receivedAt, spans) },
    });
  }
  return out;
}

/**
 * Where batchDocument writes the spans' arrays as UTF-8, one at a time, before the header (which
 * indexes them) is known; the document is copied out of it. Encoding each span's text as it is
 * made costs less than joining them into one string of the whole batch and encoding that: V8
 * flattens such a string piece by piece first.
 */
let scratch = Buffer.allocUnsafe(1 << 20);
/** Past this, a scratch buffer grown for a large batch is let go after it. */
const SCRATCH_KEPT = 8 << 20;

/** Room for `bytes` more at `used`, keeping what is written. */
function scratchRoom(used: number, bytes: number): void {
  if (used + bytes <= scratch.length) return;
  const grown = Buffer.allocUnsafe(Math.max(used + bytes, scratch.length * 2));
  scratch.copy(grown, 0, 0, used);
  scratch = grown;
}

/**
 * The `spanbatch2` document of a batch's spans (see the top of this file), as UTF-8. Offsets are
 * in characters of the document's text, as the reader slices it.
 */
export function batchDocument(newestMs: number, id: string, receivedAt: string, spans: Span[]): Buffer {
  const offsets: number[] = [];
  const parts: string[] = [];
  const partEnds: number[] = [];
  const partNumbers = new Map<string, number>();
  let partsLength = 0;
  let chars = 0;
  let used = 0;
  let lastPart = '';
  let part = -1;
  for (const span of spans) {
    const shared = spanSharedPart(span);
    if (shared !== lastPart || part < 0) {
      // The spans of one resource and scope get the same string (spanSharedPart remembers it).
      let found = partNumbers.get(shared);
      if (found === undefined) {
        found = parts.length;
        parts.push(shared);
        partsLength += shared.length;
        partEnds.push(partsLength);
        partNumbers.set(shared, found);
      }
      [lastPart, part] = [shared, found];
    }
    const text = compactSpanJson(span, part);
    offsets.push(chars);
    chars += text.length;
    scratchRoom(used, 3 * text.length); // a UTF-16 unit is at most 3 bytes of UTF-8
    used += scratch.write(text, used);
  }
  const top = Buffer.from(`${MAGIC} ${newestMs} ${id} ${receivedAt}\n${offsets.join(',')}\n${partEnds.join(',')}\n${parts.join('')}`);
  const doc = Buffer.allocUnsafe(top.length + used);
  top.copy(doc, 0);
  scratch.copy(doc, top.length, 0, used);
  if (scratch.length > SCRATCH_KEPT) scratch = Buffer.allocUnsafe(1 << 20);
  return doc;
}

/** A batch document read back (either layout): its header and body, spans sliced out by index. */
export class ParsedSpanBatch {
  private constructor(
    readonly newestMs: number,
    readonly id: string,
    readonly receivedAt: string,
    /** Where each span's text starts in the body. */
    private readonly offsets: number[],
    /** spanbatch2's shared parts; undefined for spanbatch1. */
    private readonly parts: string[] | undefined,
    private readonly body: string,
    /** The document's length (what a cache of parsed batches counts). */
    readonly chars: number,
  ) {}

  static parse(stored: string | Buffer): ParsedSpanBatch {
    const doc = typeof stored === 'string' ? stored : stored.toString('utf8');
    const first = doc.indexOf('\n');
    const second = doc.indexOf('\n', first + 1);
    const [magic, newest, id, receivedAt] = doc.slice(0, first).split(' ');
    const numbers = (from: number, to: number) => (to > from ? doc.slice(from, to).split(',').map(Number) : []);
    const offsets = numbers(first + 1, second);
    if (magic === MAGIC_V1 && second >= 0) return new ParsedSpanBatch(Number(newest), id, receivedAt, offsets, undefined, doc.slice(second + 1), doc.length);
    const third = second < 0 ? -1 : doc.indexOf('\n', second + 1);
    if (magic !== MAGIC || third < 0) throw new Error('not a span batch document');
    const parts: string[] = [];
    let at = third + 1;
    for (const end of numbers(second + 1, third)) {
      parts.push(doc.slice(at, third + 1 + end));
      at = third + 1 + end;
    }
    return new ParsedSpanBatch(Number(newest), id, receivedAt, offsets, parts, doc.slice(at), doc.length);
  }

  get length(): number {
    return this.offsets.length;
  }

  /** The span's own text: spanbatch1's document, spanbatch2's array. */
  private text(index: number): string {
    const { offsets, body } = this;
    if (this.parts) return body.slice(offsets[index], index + 1 < offsets.length ? offsets[index + 1] : body.length);
    return body.slice(offsets[index], index + 1 < offsets.length ? offsets[index + 1] - 1 : body.length - 1); // less the comma or the closing bracket
  }

  /** The JSON document of the span at `index`, or undefined past the end. */
  span(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    return this.parts ? compactSpanDocument(this.text(index), this.parts) : this.text(index);
  }

  /** Every span's row columns (after a restart, to index them). */
  rows(): SpanColumns[] {
    if (this.parts) return Array.from({ length: this.length }, (_, i) => compactSpanColumns(this.text(i), this.receivedAt));
    return (JSON.parse(this.body) as Array<Record<string, unknown>>).map((d) => ({
      trace_id: String(d.trace_id),
      span_id: String(d.span_id),
      parent_span_id: String(d.parent_span_id),
      name: String(d.name),
      service_name: String(d.service_name),
      start_time_unix_nano: BigInt(String(d.start_time_unix_nano)),
      end_time_unix_nano: BigInt(String(d.end_time_unix_nano)),
      status: d.status as SpanColumns['status'],
      kind: d.kind as SpanColumns['kind'],
      received_at: this.receivedAt,
    }));
  }
}

export const spanBatchIntake: IntakeKind<SpanBatch> = {
  kind: 'span_batches',
  key: (tenant, batch) => spanBatchKey(tenant.dataset, tenant.projectId, batch.newestMs, batch.id),
  document: (batch) => batch.doc ?? '',
  pending: () => null, // the document holds everything
  // Quarantined (or read whole) as a JSON array of the spans' documents, whatever the layout.
  json: (stored) => {
    const parsed = ParsedSpanBatch.parse(stored);
    return `[${Array.from({ length: parsed.length }, (_, i) => parsed.span(i)).join(',')}]`;
  },
  fromDocument(doc: string | Buffer) {
    const parsed = ParsedSpanBatch.parse(doc);
    return { newestMs: parsed.newestMs, id: parsed.id, receivedAt: parsed.receivedAt, rows: parsed.rows() };
  },
  // The rows' columns only: the spans' attributes are garbage once the document is durable, not
  // kept (and moved about by the collector) until the rows are in DuckDB.
  slim: (batch) => ({ newestMs: batch.newestMs, id: batch.id, receivedAt: batch.receivedAt, rows: batch.rows.map(spanColumns) }),
  index: indexSpanBatches,
};

interface SpanRowItem {
  tenant: Tenant;
  data: SpanColumns;
  ref: string;
  /** Its batch's time of receipt as DuckDB takes it, made once per batch. */
  receivedAt: DuckDBTimestampValue;
}

const identity = (dataset: unknown, project: unknown, trace: unknown, span: unknown, start: unknown) => `${dataset}\0${project}\0${trace}\0${span}\0${start}`;

/**
 * Trace ids looked up per query. A list of literals is what DuckDB answers from the `trace_id`
 * index, a lookup per id; a list parameter (`IN (SELECT unnest($traces))`) is joined against a
 * scan of the whole column instead, whose cost grows with the table (bench/README.md, "Spans in
 * bulk").
 */
const LOOKUP_CHUNK = 256;

/** A SQL string literal (trace ids are validated to [0-9A-Za-z_-], so nothing needs escaping but for safety). */
function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Adds the batches' rows, each span once: spans DuckDB has, or that came earlier in the batches, are left out. */
async function indexSpanBatches(connection: DuckDBConnection, batches: Accepted<SpanBatch>[]): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  const traces = new Set<string>();
  for (const { data } of batches) for (const row of data.rows) traces.add(row.trace_id);
  const seen = new Set<string>();
  const all = [...traces];
  for (let i = 0; i < all.length; i += LOOKUP_CHUNK) {
    const stored = await connection.runAndReadAll(
      `SELECT dataset, project_id, trace_id, span_id, start_ns FROM spans WHERE trace_id IN (${all
        .slice(i, i + LOOKUP_CHUNK)
        .map(sqlString)
        .join(', ')})`,
    );
    for (const [d, p, t, s, start] of stored.getRows()) seen.add(identity(d, p, t, s, start));
  }
  const rows: SpanRowItem[] = [];
  for (const { tenant, data } of batches) {
    if (data.rows.length === 0) continue;
    const receivedAt = receivedAtValue({ received_at: data.receivedAt }); // every row of a batch has its time of receipt
    for (let i = 0; i < data.rows.length; i++) {
      const row = data.rows[i];
      const key = identity(tenant.dataset, tenant.projectId, row.trace_id, row.span_id, row.start_time_unix_nano);
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({ tenant, data: row, ref: spanRefText(data.newestMs, data.id, i), receivedAt });
    }
  }
  if (rows.length) await appendRows(connection, 'spans', rows, appendSpanRow, SPAN_APPEND_SLICE_ROWS);
  await connection.run('COMMIT');
}

function appendSpanRow(appender: DuckDBAppender, row: SpanRowItem): void {
  appendSpanColumns(appender, row, row.ref, row.receivedAt);
}

/** Characters of batch documents kept parsed for reads: a trace's spans usually share a few batches. */
const CACHE_CHARS = 8 * 1024 * 1024;

/**
 * Batch documents recently read, parsed: the spans of a trace read one by one find their batch
 * here after the first. Batch documents never change (a key is never reused), so nothing goes stale.
 */
export class SpanBatchCache {
  private readonly parsed = new Map<string, ParsedSpanBatch>();
  private chars = 0;

  constructor(private readonly load: (key: DocKey) => string | undefined) {}

  span(dataset: string, projectId: string, ref: SpanRef): string | undefined {
    const key = spanBatchKey(dataset, projectId, ref.newestMs, ref.id);
    const flat = key.join('\0');
    let batch = this.parsed.get(flat);
    if (batch) {
      this.parsed.delete(flat); // most recently used last
      this.parsed.set(flat, batch);
    } else {
      const doc = this.load(key);
      if (doc === undefined) return undefined;
      batch = ParsedSpanBatch.parse(doc);
      this.parsed.set(flat, batch);
      this.chars += doc.length;
      for (const [oldest, old] of this.parsed) {
        if (this.chars <= CACHE_CHARS || oldest === flat) break;
        this.parsed.delete(oldest);
        this.chars -= old.chars;
      }
    }
    return batch.span(ref.index);
  }
}
