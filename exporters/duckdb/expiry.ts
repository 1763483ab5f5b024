// Retention in the duckdb exporter's tables: rows dated before each signal's first kept day go,
// with their documents and the issues last seen before it.
import type { ExpiryResult } from '../../src/engine/component.js';
import type { Signal } from '../../src/engine/item.js';
import type { Database } from '../../extensions/duckdb/database.js';
import { listValue, LIST, VARCHAR } from '@duckdb/node-api';
import type { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { spanKey, type DocKey, type DocKind, type DocStore } from './docs.js';

export async function expire(db: Database, docs: DocStore, blobs: SegmentBlobs, firstKept: Partial<Record<Signal, string>>): Promise<ExpiryResult> {
  const expired: Record<DocKind, DocKey[]> = { events: [], traces: [], replays: [], span_batches: [] };
  let batchCut: { before: number; projects: Array<[string, string]> } | undefined;
  let unreferenced: string[] = [];
  const deletedRows = await db.write(async (c) => {
    const counts: Record<string, number> = {};
    if (firstKept.events) {
      const before = BigInt(Date.parse(firstKept.events)) * 1000n;
      const events = await c.runAndReadAll('DELETE FROM events WHERE timestamp < make_timestamp(?::BIGINT) RETURNING dataset, project_id, id', [before]);
      expired.events = events.getRows().map((key) => key.map(String));
      counts.events = expired.events.length;
      counts.issues = (await c.run('DELETE FROM issues WHERE last_seen < make_timestamp(?::BIGINT)', [before])).rowsChanged;
    }
    if (firstKept.traces) {
      const before = BigInt(Date.parse(firstKept.traces)) * 1_000_000n;
      const spans = await c.runAndReadAll('DELETE FROM spans WHERE start_ns < ? RETURNING dataset, project_id, start_ns, trace_id, span_id, doc', [before]);
      const rows = spans.getRows();
      // Rows of the per-span layout ('' in doc) take their own document along.
      expired.traces = rows
        .filter((row) => row[5] === '')
        .map(([d, p, start, t, s]) => spanKey(String(d), String(p), BigInt(start as bigint), String(t), String(s)));
      counts.spans = rows.length;
      // Span batches go whole once their newest span is before the cut: every span in them is then
      // expired too (a batch is never cut in two, nor read with some of its spans gone).
      const projects = await c.runAndReadAll('SELECT DISTINCT dataset, project_id FROM spans');
      const seen = new Set<string>();
      const pairs: Array<[string, string]> = [];
      for (const [d, p] of [...rows, ...projects.getRows()]) {
        const pair: [string, string] = [String(d), String(p)];
        if (seen.has(pair.join('\0'))) continue;
        seen.add(pair.join('\0'));
        pairs.push(pair);
      }
      batchCut = { before: Number(before / 1_000_000n), projects: pairs };
    }
    if (firstKept.replays) {
      // Whole replays go, once their last segment is before the cut: a replay is never cut in two.
      const before = BigInt(Date.parse(firstKept.replays)) * 1000n;
      const segments = await c.runAndReadAll(
        `DELETE FROM replay_segments WHERE (dataset, project_id, replay_id) IN (
           SELECT (dataset, project_id, replay_id) FROM replay_segments GROUP BY ALL HAVING max(finished_at) < make_timestamp(?::BIGINT))
         RETURNING dataset, project_id, replay_id, segment_id, blob`,
        [before],
      );
      const rows = segments.getRows();
      expired.replays = rows.map(([d, p, r, s]) => [String(d), String(p), String(r), Number(s)]);
      counts.replay_segments = rows.length;
      const shas = [...new Set(rows.map((row) => String(row[4])))];
      if (shas.length) {
        // A blob is shared by every segment with the same events: only unreferenced ones go.
        const kept = await c.runAndReadAll(
          'SELECT DISTINCT blob FROM replay_segments WHERE list_contains($shas, blob)',
          { shas: listValue(shas) },
          { shas: LIST(VARCHAR) },
        );
        const still = new Set(kept.getRows().map(([sha]) => String(sha)));
        unreferenced = shas.filter((sha) => !still.has(sha));
      }
    }
    return counts;
  });
  // After the commit: a crash in between leaves documents without rows, never the reverse.
  await docs.remove('events', expired.events);
  await docs.remove('traces', expired.traces);
  if (batchCut) {
    const { before, projects } = batchCut;
    await docs.remove(
      'span_batches',
      projects.flatMap(([dataset, project]) => docs.keys('span_batches', [dataset, project], [dataset, project, before])),
    );
  }
  await docs.remove('replays', expired.replays);
  await blobs.remove(unreferenced);
  return { deletedRows, deletedPartitions: [] };
}
