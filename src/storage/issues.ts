// Issue reads and status changes over the `issues` table, which the duckdb exporter keeps up to
// date in the same transaction as the events it stores.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../engine/item.js';
import type { Database } from './database.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { rows } from './rows.js';

export type IssueStatus = 'unresolved' | 'resolved' | 'ignored' | 'regressed';
export const SETTABLE_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;

export interface Issue {
  id: string;
  project_id: string;
  title: string;
  culprit: string;
  type: string;
  value: string;
  level: string;
  status: IssueStatus;
  first_seen: string;
  last_seen: string;
  count: number;
  first_release: string;
  last_release: string;
  status_changed_at: string | null;
}

export interface IssueFilter {
  dataset: Dataset;
  projectId: string;
  status?: IssueStatus;
}

const COLUMNS =
  'id, project_id, title, culprit, type, value, level, status, first_seen, last_seen, count, first_release, last_release, status_changed_at';

export class IssueStore {
  constructor(private readonly db: Database) {}

  /** Most recently seen first, keyset-paginated on (last_seen, id). */
  async list(filter: IssueFilter, limit: number, cursor?: string): Promise<{ issues: Issue[]; nextCursor: string | null }> {
    const where = ['dataset = $dataset', 'project_id = $project'];
    const params: Record<string, DuckDBValue> = { dataset: filter.dataset, project: filter.projectId, limit: limit + 1 };
    if (filter.status) {
      where.push('status = $status');
      params.status = filter.status;
    }
    if (cursor !== undefined) {
      const { micros, id } = decodeCursor(cursor);
      where.push('(last_seen < make_timestamp($cts::BIGINT) OR (last_seen = make_timestamp($cts::BIGINT) AND id < $cid))');
      params.cts = micros;
      params.cid = id;
    }
    const result = await this.db.reader().runAndReadAll(
      `SELECT ${COLUMNS}, epoch_us(last_seen) AS micros FROM issues WHERE ${where.join(' AND ')}
       ORDER BY last_seen DESC, id DESC LIMIT $limit`,
      params,
    );
    const found = rows<Issue & { micros: number }>(result);
    const raw = result.getRowObjectsJS();
    const page = found.slice(0, limit);
    const next = found.length > limit ? raw[limit - 1] : undefined;
    return {
      issues: page.map(({ micros: _micros, ...issue }) => issue),
      nextCursor: next ? encodeCursor({ micros: next.micros as bigint, id: String(next.id) }) : null,
    };
  }

  async get(dataset: Dataset, id: string): Promise<Issue | undefined> {
    const result = await this.db.reader().runAndReadAll(`SELECT ${COLUMNS} FROM issues WHERE dataset = ? AND id = ?`, [dataset, id]);
    return rows<Issue>(result)[0];
  }

  async setStatus(dataset: Dataset, id: string, status: (typeof SETTABLE_STATUSES)[number]): Promise<Issue | undefined> {
    return this.db.write(async (c) => {
      const result = await c.runAndReadAll(
        `UPDATE issues SET status = ?, status_changed_at = make_timestamp(?::BIGINT) WHERE dataset = ? AND id = ? RETURNING ${COLUMNS}`,
        [status, BigInt(Date.now()) * 1000n, dataset, id],
      );
      return rows<Issue>(result)[0];
    });
  }
}
