// Writes one group of events in the current transaction: appends the rows with the Appender and
// folds them into their issues' rows. Ids already stored are skipped (idempotent ingest): the
// common case, ids never seen, appends straight away and lets the primary key catch a repeat,
// which fails the transaction; the exporter then writes the group again with `checkStored`,
// which looks the ids up first (one query more per commit, paid only when a sender repeats).
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Item } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { appendEventColumns, isoMicros } from '../../src/storage/appenders.js';

interface IssueDelta {
  id: string;
  dataset: string;
  projectId: string;
  groupingHash: string;
  title: string;
  culprit: string;
  type: string;
  value: string;
  level: string;
  first: { micros: bigint; release: string };
  last: { micros: bigint; release: string };
  count: number;
}

export async function writeEvents(connection: DuckDBConnection, items: Item<ErrorEvent>[], checkStored: boolean): Promise<void> {
  const fresh = checkStored ? await skipStored(connection, items) : items;
  if (fresh.length === 0) return;
  const appender = await connection.createAppender('events');
  try {
    for (const item of fresh) {
      appendEventColumns(appender, item);
      appender.endRow();
    }
    appender.flushSync();
  } catch (error) {
    closeQuietly(appender); // closing an appender of an aborted transaction throws again: keep the first error
    throw error;
  }
  appender.closeSync();
  await upsertIssues(connection, fresh);
}

/** Returns the items not stored yet; a repeated id takes the stored event's issue id for its ack. */
async function skipStored(connection: DuckDBConnection, items: Item<ErrorEvent>[]): Promise<Item<ErrorEvent>[]> {
  const keyOf = (dataset: string, project: string, id: string) => `${dataset}\0${project}\0${id}`;
  const params: Record<string, DuckDBValue> = {};
  const placeholders = items.map((item, i) => {
    params[`i${i}`] = item.data.id;
    return `$i${i}`;
  });
  const result = await connection.runAndReadAll(
    `SELECT dataset, project_id, id, issue_id FROM events WHERE id IN (${placeholders.join(', ')})`,
    params,
  );
  const stored = new Map<string, string>();
  for (const [dataset, project, id, issue] of result.getRows()) stored.set(keyOf(String(dataset), String(project), String(id)), String(issue));

  const fresh: Item<ErrorEvent>[] = [];
  const inBatch = new Map<string, ErrorEvent>();
  for (const item of items) {
    const key = keyOf(item.tenant.dataset, item.tenant.projectId, item.data.id);
    const storedIssue = stored.get(key) ?? inBatch.get(key)?.issue_id;
    if (storedIssue !== undefined) {
      item.data.issue_id = storedIssue;
      continue;
    }
    inBatch.set(key, item.data);
    fresh.push(item);
  }
  return fresh;
}

async function upsertIssues(connection: DuckDBConnection, items: Item<ErrorEvent>[]): Promise<void> {
  const deltas = new Map<string, IssueDelta>();
  for (const { data: event, tenant } of items) {
    const id = requireIssue(event);
    const at = { micros: isoMicros(event.timestamp), release: event.release };
    const delta = deltas.get(id);
    if (!delta) {
      deltas.set(id, {
        id,
        dataset: tenant.dataset,
        projectId: tenant.projectId,
        groupingHash: event.grouping_hash ?? '',
        title: event.title ?? event.exception.type,
        culprit: event.culprit ?? '',
        type: event.exception.type,
        value: event.exception.value,
        level: event.level,
        first: at,
        last: at,
        count: 1,
      });
      continue;
    }
    delta.count++;
    if (at.micros < delta.first.micros) delta.first = at;
    if (at.micros >= delta.last.micros) {
      delta.last = at;
      Object.assign(delta, { title: event.title ?? delta.title, culprit: event.culprit ?? delta.culprit, level: event.level, value: event.exception.value });
    }
  }

  const params: Record<string, DuckDBValue> = { now: BigInt(Date.now()) * 1000n };
  const rows = [...deltas.values()].map((d, i) => {
    Object.assign(params, {
      [`id${i}`]: d.id,
      [`ds${i}`]: d.dataset,
      [`p${i}`]: d.projectId,
      [`h${i}`]: d.groupingHash,
      [`t${i}`]: d.title,
      [`c${i}`]: d.culprit,
      [`ty${i}`]: d.type,
      [`v${i}`]: d.value,
      [`l${i}`]: d.level,
      [`fs${i}`]: d.first.micros,
      [`ls${i}`]: d.last.micros,
      [`n${i}`]: d.count,
      [`fr${i}`]: d.first.release,
      [`lr${i}`]: d.last.release,
    });
    return `($id${i}, $ds${i}, $p${i}, $h${i}, $t${i}, $c${i}, $ty${i}, $v${i}, $l${i}, 'unresolved',
      make_timestamp($fs${i}::BIGINT), make_timestamp($ls${i}::BIGINT), $n${i}, $fr${i}, $lr${i}, NULL)`;
  });
  // A new event reopens a resolved issue as `regressed`; ignored issues stay ignored.
  await connection.run(
    `INSERT INTO issues VALUES ${rows.join(',\n')}
     ON CONFLICT (id) DO UPDATE SET
       count = issues.count + excluded.count,
       first_release = CASE WHEN excluded.first_seen < issues.first_seen THEN excluded.first_release ELSE issues.first_release END,
       first_seen = least(issues.first_seen, excluded.first_seen),
       last_release = CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.last_release ELSE issues.last_release END,
       title = CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.title ELSE issues.title END,
       culprit = CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.culprit ELSE issues.culprit END,
       value = CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.value ELSE issues.value END,
       level = CASE WHEN excluded.last_seen >= issues.last_seen THEN excluded.level ELSE issues.level END,
       last_seen = greatest(issues.last_seen, excluded.last_seen),
       status = CASE WHEN issues.status = 'resolved' THEN 'regressed' ELSE issues.status END,
       status_changed_at = CASE WHEN issues.status = 'resolved' THEN make_timestamp($now::BIGINT) ELSE issues.status_changed_at END`,
    params,
  );
}


function requireIssue(event: ErrorEvent): string {
  if (!event.issue_id) throw new Error(`event ${event.id} has no issue id: put the grouping processor in the pipeline before the duckdb exporter`);
  return event.issue_id;
}

function closeQuietly(appender: { closeSync(): void }): void {
  try {
    appender.closeSync();
  } catch {
    // the transaction is rolled back by the caller
  }
}

/** The error DuckDB raises when an appended row repeats a primary key. */
export function isDuplicateKey(error: unknown): boolean {
  return /duplicate key|primary key|unique constraint/i.test(String((error as Error)?.message ?? error));
}
