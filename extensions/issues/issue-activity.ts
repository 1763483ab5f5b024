// An issue's timeline (issue #26): comments, status and assignee changes, merges and unmerges,
// regressions and escalations, each with who did it and when, in the catalog's issue_activity.
// recordActivity is the one way in: it writes the entries and hands them to the shared control
// plane in the same transaction, so every node shows the same timeline. Entries whose id is
// derived from what they record (a regression: the issue and the event) are written once however
// often the write is retried.
import { randomUUID } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';

export const ACTIVITY_KINDS = [
  'first_seen',
  'regressed',
  'escalated',
  'status',
  'assignee',
  'merged',
  'merged_into',
  'unmerged',
  'unmerged_from',
  'comment',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Who did it: a web user, an API key, or the service itself. */
export type Actor = { type: 'user'; id: string; email: string } | { type: 'key'; id: string } | { type: 'system' };

export interface Activity {
  id: string;
  dataset: Dataset;
  project_id: string;
  issue_id: string;
  kind: ActivityKind;
  actor: Actor;
  /** What changed: `{status}`, `{assignee}`, `{text}`, `{issue_ids, fingerprints}`, … (per kind, see docs/api.md). */
  data: Record<string, unknown>;
  /** Epoch ms. */
  at: number;
}

export type ActivityInput = Omit<Activity, 'id' | 'at'> & { id?: string; at?: number };

/** An entry as the control plane carries it between nodes. */
export type ActivityChange = { kind: 'issue_activity'; activity: Activity };

/** The longest comment, in characters. */
export const MAX_COMMENT_CHARS = 10_000;

export class IssueActivity {
  constructor(private readonly db: Database) {}

  /** Records the entries (an entry whose id exists already is kept as it was). */
  async record(inputs: ActivityInput[]): Promise<Activity[]> {
    const now = Date.now();
    const entries = inputs.map((input): Activity => ({ ...input, id: input.id ?? randomUUID(), at: input.at ?? now }));
    if (entries.length === 0) return entries;
    await this.db.write(async (c) => {
      for (const entry of entries) {
        await c.run(
          `INSERT INTO issue_activity VALUES ($id, $dataset, $project, $issue, $kind, $actor, $data, $at) ON CONFLICT (id) DO NOTHING`,
          params(entry),
        );
        await this.db.recordChange(c, { kind: 'issue_activity', activity: entry });
      }
    });
    return entries;
  }

  /** An entry another node recorded. */
  async apply(entry: Activity): Promise<void> {
    await this.db.write((c) =>
      c.run(`INSERT INTO issue_activity VALUES ($id, $dataset, $project, $issue, $kind, $actor, $data, $at) ON CONFLICT (id) DO NOTHING`, params(entry)),
    );
  }

  /** The issue's entries, newest first; `before` (epoch ms, id) continues a page. */
  async list(dataset: Dataset, projectId: string, issueId: string, limit: number, before?: { at: number; id: string }): Promise<Activity[]> {
    const where = ['dataset = $dataset', 'project_id = $project', 'issue_id = $issue'];
    const values: Record<string, DuckDBValue> = { dataset, project: projectId, issue: issueId, limit };
    if (before) {
      where.push('(at_ms < $bat OR (at_ms = $bat AND id < $bid))');
      values.bat = before.at;
      values.bid = before.id;
    }
    const result = await this.db
      .reader()
      .runAndReadAll(
        `SELECT id, dataset, project_id, issue_id, kind, actor, data, at_ms AS at FROM issue_activity WHERE ${where.join(' AND ')} ORDER BY at_ms DESC, id DESC LIMIT $limit`,
        values,
      );
    return rows<{
      id: string;
      dataset: Dataset;
      project_id: string;
      issue_id: string;
      kind: ActivityKind;
      actor: string;
      data: string | null;
      at: bigint | number;
    }>(result).map((row) => ({
      ...row,
      actor: JSON.parse(row.actor) as Actor,
      data: row.data === null ? {} : (JSON.parse(row.data) as Record<string, unknown>),
      at: Number(row.at),
    }));
  }
}

/** Records one entry (or several) in an issue's timeline: the call every part that changes an issue makes. */
export function recordActivity(activity: IssueActivity, ...entries: ActivityInput[]): Promise<Activity[]> {
  return activity.record(entries);
}

function params(entry: Activity): Record<string, DuckDBValue> {
  return {
    id: entry.id,
    dataset: entry.dataset,
    project: entry.project_id,
    issue: entry.issue_id,
    kind: entry.kind,
    actor: JSON.stringify(entry.actor),
    data: JSON.stringify(entry.data),
    at: entry.at,
  };
}

/**
 * The regressions the issues processor decided, in their issues' timelines. Rare (an event of a
 * resolved issue), so it costs nothing per ordinary event; the id is the issue and the event, so
 * a retried batch records each once.
 */
export async function recordRegressions(
  activity: IssueActivity,
  observations: Array<{ dataset: Dataset; projectId: string; issueId: string; eventId: string }>,
  transitions: ReadonlyArray<string | undefined>,
): Promise<void> {
  const entries = observations.flatMap((o, i): ActivityInput[] =>
    transitions[i] === 'regressed'
      ? [
          {
            id: `regressed:${o.issueId}:${o.eventId}`,
            dataset: o.dataset,
            project_id: o.projectId,
            issue_id: o.issueId,
            kind: 'regressed',
            actor: { type: 'system' },
            data: { event_id: o.eventId },
          },
        ]
      : [],
  );
  if (entries.length > 0) await activity.record(entries);
}
