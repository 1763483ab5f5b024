// Writes one group of events in the current transaction: skips ids already stored (idempotent
// ingest), puts the new events' documents in the DocStore, appends their rows (without the
// document) with the Appender, and folds them into their issues' rows. The documents are durable
// before the rows commit, so every committed row has its document.
// The ids are looked up first rather than left to the primary key to catch: a failed append
// leaves its rows buffered in the appender, and they would be flushed into some later
// transaction when the appender is garbage-collected.
import { listValue, timestampValue, type DuckDBConnection } from '@duckdb/node-api';
import type { Item } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import { appendEventColumns, isoMicros } from '../../src/storage/appenders.js';
import type { DocStore } from '../../src/storage/docs.js';
import { appendRows } from './appenders.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

/** Writes the group in one transaction that it begins and commits itself (Database.writeInOwnTransaction). */
export async function writeEvents(connection: DuckDBConnection, docs: DocStore, items: Item<ErrorEvent>[]): Promise<void> {
  // Checked before anything is appended: an appender abandoned half-filled would flush its rows later.
  for (const item of items) requireIssue(item.data);
  const fresh = await skipStored(connection, docs, items); // begins the transaction
  if (fresh.length === 0) {
    await connection.run('COMMIT');
    return;
  }
  const entries = fresh.map(({ tenant, data }) => ({ key: docKey(tenant, data), doc: eventDocumentJson(data) }));
  const durable = docs.putEvents(entries); // LMDB writes on its own thread meanwhile
  durable.catch(() => undefined); // awaited below; a failed append must not leave it unhandled
  await appendRows(connection, 'events', (appender) => {
    for (const item of fresh) {
      appendEventColumns(appender, item, '');
      appender.endRow();
    }
  });
  await durable;
  await upsertIssues(connection, fresh);
}

function docKey(tenant: Item['tenant'], event: ErrorEvent): [string, string, string] {
  return [tenant.dataset, tenant.projectId, event.id];
}

/**
 * Returns the items not stored yet; a repeated id takes the stored event's issue id for its ack.
 * The DocStore answers first: every committed row's document was stored before the row, so an id
 * without a document was never committed, and DuckDB is asked only about ids that have one (a
 * re-sent event, or a document whose rows failed to commit). Fresh ids, nearly all of them, cost
 * no query: DuckDB could only scan the id column for them, which grows with the table.
 */
async function skipStored(connection: DuckDBConnection, docs: DocStore, items: Item<ErrorEvent>[]): Promise<Item<ErrorEvent>[]> {
  const keyOf = (dataset: string, project: string, id: string) => `${dataset}\0${project}\0${id}`;
  const ids = [...new Set(items.filter(({ tenant, data }) => docs.hasEvent(tenant.dataset, tenant.projectId, data.id)).map((item) => item.data.id))];
  const lookup = 'SELECT dataset, project_id, id, issue_id FROM events WHERE';
  let result;
  if (ids.length === 0) {
    await connection.run('BEGIN TRANSACTION');
  } else if (ids.every((id) => UUID.test(id))) {
    // Ids the validation processor normalized (lower-case UUIDs) are spliced in as literals, so
    // BEGIN and the lookup go in one round trip; anything else is bound as one list parameter.
    result = await connection.runAndReadAll(`BEGIN TRANSACTION; ${lookup} id IN (${ids.map((id) => `'${id}'`).join(', ')})`);
  } else {
    await connection.run('BEGIN TRANSACTION');
    result = await connection.runAndReadAll(`${lookup} list_contains($ids, id)`, { ids: listValue(ids) });
  }
  const stored = new Map<string, string>();
  for (const [dataset, project, id, issue] of result?.getRows() ?? []) stored.set(keyOf(String(dataset), String(project), String(id)), String(issue));

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

  await appendRows(connection, 'issue_deltas', (appender) => {
    for (const d of deltas.values()) {
      for (const text of [d.id, d.dataset, d.projectId, d.groupingHash, d.title, d.culprit, d.type, d.value, d.level, 'unresolved'])
        appender.appendVarchar(text);
      appender.appendTimestamp(timestampValue(d.first.micros));
      appender.appendTimestamp(timestampValue(d.last.micros));
      appender.appendBigInt(BigInt(d.count));
      appender.appendVarchar(d.first.release);
      appender.appendVarchar(d.last.release);
      appender.appendNull();
      appender.endRow();
    }
  });
  // A new event reopens a resolved issue as `regressed`; ignored issues stay ignored. No
  // parameters: the one value spliced in is an integer we computed.
  const now = (BigInt(Date.now()) * 1000n).toString();
  await connection.run(
    `INSERT INTO issues SELECT * FROM issue_deltas
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
       status_changed_at = CASE WHEN issues.status = 'resolved' THEN make_timestamp(${now}::BIGINT) ELSE issues.status_changed_at END;
     DELETE FROM issue_deltas;
     COMMIT;`,
  );
}


function requireIssue(event: ErrorEvent): string {
  if (!event.issue_id) throw new Error(`event ${event.id} has no issue id: put the grouping processor in the pipeline before the duckdb exporter`);
  return event.issue_id;
}
