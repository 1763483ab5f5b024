// Events in the duckdb exporter's intake (intake.ts): documents keyed (dataset, project, id);
// rows added to DuckDB in one transaction with the Appender (without the document), folded into
// their issues' aggregates (count, first and last seen and release, latest title). Events coming back from pending entries after a restart may have been
// committed before the crash, so those are looked up first (`recheck`); in normal running the
// intake has already made sure every id is new. Issue ids are checked before anything is
// appended: an appender abandoned half-filled would flush its rows into some later transaction.
import { listValue, timestampValue, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { decodeStoredEvent, encodeStoredEvent, storedEventJson } from '../../src/records/event-body.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { appendEventColumns, isoMicros } from '../../src/records/event-row.js';
import { appendRows } from './kept-appenders.js';
import type { Accepted, IntakeKind } from './intake.js';

type AcceptedEvent = Accepted<ErrorEvent>;

export const eventIntake: IntakeKind<ErrorEvent> = {
  kind: 'events',
  key: (tenant, event) => [tenant.dataset, tenant.projectId, event.id],
  check: requireIssue,
  // The body as received and a derived record when it may be stored so, else the whole document (src/records/event-body.ts).
  document: encodeStoredEvent,
  json: storedEventJson,
  // The document lacks only the grouping hash (the issue fold needs it).
  pending: (event) => event.grouping_hash ?? null,
  fromDocument(doc, extra) {
    const event = decodeStoredEvent(doc);
    event.grouping_hash = typeof extra === 'string' ? extra : undefined;
    return event;
  },
  slim: (event) => ({
    id: event.id,
    project_id: event.project_id,
    timestamp: event.timestamp,
    received_at: event.received_at,
    environment: event.environment,
    release: event.release,
    level: event.level,
    message: event.message,
    user: event.user && { id: event.user.id, email: event.user.email },
    trace_id: event.trace_id,
    replay_id: event.replay_id,
    tags: event.tags,
    issue_id: event.issue_id,
    grouping_hash: event.grouping_hash,
    grouping_id: event.grouping_id,
    title: event.title,
    culprit: event.culprit,
    exception: { type: event.exception.type, value: event.exception.value },
    processing_errors: [],
  }),
  // A repeated id is acknowledged with the stored event's issue id.
  duplicate(event, original) {
    event.issue_id = original().issue_id;
  },
  index: indexEvents,
};

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
  lastReceived: bigint;
}

/** Writes the events in one transaction that it begins and commits itself (Database.writeInOwnTransaction). */
async function indexEvents(connection: DuckDBConnection, events: AcceptedEvent[], recheck: boolean): Promise<void> {
  for (const event of events) requireIssue(event.data);
  let fresh = events;
  if (recheck) {
    await connection.run('BEGIN TRANSACTION');
    const stored = await connection.runAndReadAll('SELECT dataset, project_id, id FROM events WHERE list_contains($ids, id)', {
      ids: listValue(events.map((event) => event.data.id)),
    });
    const keys = new Set(stored.getRows().map(([dataset, project, id]) => `${dataset}\0${project}\0${id}`));
    fresh = events.filter(({ tenant, data }) => !keys.has(`${tenant.dataset}\0${tenant.projectId}\0${data.id}`));
    if (fresh.length === 0) {
      await connection.run('COMMIT');
      return;
    }
  } else {
    await connection.run('BEGIN TRANSACTION');
  }
  await appendRows(connection, 'events', fresh, appendEventRow);
  await upsertIssues(connection, fresh);
}

function appendEventRow(appender: DuckDBAppender, event: AcceptedEvent): void {
  appendEventColumns(appender, event, '');
}

async function upsertIssues(connection: DuckDBConnection, items: AcceptedEvent[]): Promise<void> {
  const deltas = new Map<string, IssueDelta>();
  for (const { data: event, tenant } of items) {
    const id = event.grouping_id ?? requireIssue(event); // per grouping id: merges fold them at read time
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
        lastReceived: isoMicros(event.received_at),
      });
      continue;
    }
    delta.count++;
    const received = isoMicros(event.received_at);
    if (received > delta.lastReceived) delta.lastReceived = received;
    if (at.micros < delta.first.micros) delta.first = at;
    if (at.micros >= delta.last.micros) {
      delta.last = at;
      Object.assign(delta, { title: event.title ?? delta.title, culprit: event.culprit ?? delta.culprit, level: event.level, value: event.exception.value });
    }
  }

  await appendRows(connection, 'issue_deltas', deltas.values(), appendIssueDelta);
  // The aggregates only: statuses live in the catalog (the issues processor reopens a resolved
  // issue before the event gets here). The status column is left as the table was made.
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
       last_received = greatest(issues.last_received, excluded.last_received);
     DELETE FROM issue_deltas;
     COMMIT;`,
  );
}

function appendIssueDelta(appender: DuckDBAppender, d: IssueDelta): void {
  for (const text of [d.id, d.dataset, d.projectId, d.groupingHash, d.title, d.culprit, d.type, d.value, d.level, 'unresolved']) appender.appendVarchar(text);
  appender.appendTimestamp(timestampValue(d.first.micros));
  appender.appendTimestamp(timestampValue(d.last.micros));
  appender.appendBigInt(BigInt(d.count));
  appender.appendVarchar(d.first.release);
  appender.appendVarchar(d.last.release);
  appender.appendNull(); // status_changed_at: statuses live in the catalog
  appender.appendTimestamp(timestampValue(d.lastReceived));
}

function requireIssue(event: ErrorEvent): string {
  if (!event.issue_id) throw new Error(`event ${event.id} has no issue id: put the grouping processor in the pipeline before the duckdb exporter`);
  return event.issue_id;
}
