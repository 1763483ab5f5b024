// What Sentry-SDK ingest keeps beside the pipelines' records: the attachments sent with events
// (metadata in the catalog, bytes once per content under `data_dir/attachments`, written and
// synced before the sender is answered, expired with their event), release health (sessions per
// release, from `session` and `sessions` items) and client reports (what SDKs discarded, and why).
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExpiryResult } from '../../src/engine/component.js';
import type { Dataset } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import { makePrivateDir, syncDir } from '../duckdb/private-files.js';
import { rows } from '../duckdb/rows.js';

export interface EventAttachment {
  /** `att_` and 20 hex digits, derived from the event id and the name (stable across re-sends). */
  id: string;
  name: string;
  content_type: string | null;
  attachment_type: string | null;
  size: number;
  sha256: string;
  created_at: string;
}

export interface NewAttachment {
  name: string;
  contentType?: string;
  attachmentType?: string;
  bytes: Buffer;
  /** The event's timestamp (ISO 8601): the attachment expires with it. Default: now. */
  eventAt?: string;
}

/** Adds and expiries of one attachments directory run one at a time (a file is shared by every attachment with its bytes). */
const chains = new Map<string, Promise<unknown>>();
function exclusive<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const result = (chains.get(dir) ?? Promise.resolve()).then(work, work);
  chains.set(
    dir,
    result.catch(() => undefined),
  );
  return result;
}

export function attachmentId(eventId: string, name: string): string {
  return `att_${createHash('sha256').update(`${eventId}\0${name}`).digest('hex').slice(0, 20)}`;
}

type AttachmentRow = Omit<EventAttachment, 'id'>;

export class EventAttachments {
  readonly dir: string;

  constructor(
    private readonly db: Database,
    dataDir: string,
  ) {
    this.dir = join(dataDir, 'attachments');
  }

  /** Stores the bytes (synced) and lists them on the event; a second copy of one name replaces the first. */
  async add(dataset: Dataset, projectId: string, eventId: string, attachment: NewAttachment): Promise<EventAttachment> {
    const sha256 = createHash('sha256').update(attachment.bytes).digest('hex');
    return exclusive(this.dir, async () => {
      makePrivateDir(this.dir);
      const target = join(this.dir, sha256);
      const staging = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      const file = await open(staging, 'w', 0o600);
      try {
        await file.writeFile(attachment.bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(staging, target);
      await syncDir(this.dir);
      const row: EventAttachment = {
        id: attachmentId(eventId, attachment.name),
        name: attachment.name,
        content_type: attachment.contentType ?? null,
        attachment_type: attachment.attachmentType ?? null,
        size: attachment.bytes.length,
        sha256,
        created_at: new Date().toISOString(),
      };
      await this.db.write(async (c) => {
        await c.run(
          `INSERT OR REPLACE INTO event_attachments (dataset, project_id, event_id, name, content_type, attachment_type, size, sha256, created_at, event_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::TIMESTAMP, ?::TIMESTAMP)`,
          [
            dataset,
            projectId,
            eventId,
            row.name,
            row.content_type,
            row.attachment_type,
            row.size,
            row.sha256,
            row.created_at,
            attachment.eventAt ?? row.created_at,
          ],
        );
      });
      return row;
    });
  }

  async list(dataset: Dataset, projectId: string, eventId: string): Promise<EventAttachment[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT name, content_type, attachment_type, size, sha256, created_at FROM event_attachments
           WHERE dataset = ? AND project_id = ? AND event_id = ? ORDER BY created_at, name`,
      [dataset, projectId, eventId],
    );
    return rows<AttachmentRow>(result).map((row) => ({ id: attachmentId(eventId, row.name), ...row }));
  }

  /** One attachment of the event with its bytes, or undefined (no such attachment, or its bytes are gone). */
  async get(dataset: Dataset, projectId: string, eventId: string, id: string): Promise<{ attachment: EventAttachment; bytes: Buffer } | undefined> {
    const attachment = (await this.list(dataset, projectId, eventId)).find((a) => a.id === id);
    if (!attachment) return undefined;
    try {
      return { attachment, bytes: await readFile(join(this.dir, attachment.sha256)) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Retention: the attachments of events dated before `firstKeptDay` (`YYYY-MM-DD`, UTC), rows and then the bytes no other attachment has. */
  async expire(firstKeptDay: string): Promise<ExpiryResult> {
    return exclusive(this.dir, async () => {
      const { deleted, unreferenced } = await this.db.write(async (c) => {
        const gone = await c.runAndReadAll('DELETE FROM event_attachments WHERE event_at < CAST(? AS TIMESTAMP) RETURNING sha256', [firstKeptDay]);
        const shas = [...new Set(gone.getRows().map(([sha]) => String(sha)))];
        const kept = new Set<string>();
        if (shas.length) {
          const still = await c.runAndReadAll(`SELECT DISTINCT sha256 FROM event_attachments WHERE sha256 IN (${shas.map(() => '?').join(', ')})`, shas);
          for (const [sha] of still.getRows()) kept.add(String(sha));
        }
        return { deleted: gone.getRows().length, unreferenced: shas.filter((sha) => !kept.has(sha)) };
      });
      // After the commit: a crash in between leaves bytes without rows, never rows without bytes.
      for (const sha of unreferenced) await unlink(join(this.dir, sha)).catch(() => undefined);
      return { deletedRows: { event_attachments: deleted }, deletedPartitions: [] };
    });
  }
}

/** Rows with the same key merged into one, their `fields` added up. */
function summed<T extends object, K extends keyof T>(list: T[], key: (row: T) => string, fields: readonly K[]): Map<string, T> {
  const merged = new Map<string, T>();
  for (const row of list) {
    const into = merged.get(key(row));
    if (!into) merged.set(key(row), { ...row });
    else for (const field of fields) (into[field] as number) += row[field] as number;
  }
  return merged;
}

/** What SDKs discarded before sending (`client_report` items), per reason and data category. */
export interface DiscardedEvents {
  reason: string;
  category: string;
  quantity: number;
}

export interface ClientReportSummary {
  /** All events the project's SDKs reported discarding. */
  discarded_total: number;
  /** Per reason and category, most discarded first. */
  discarded_events: Array<DiscardedEvents & { last_seen_at: string }>;
}

export class ClientReports {
  constructor(private readonly db: Database) {}

  async record(dataset: Dataset, projectId: string, discarded: DiscardedEvents[]): Promise<void> {
    const merged = summed(discarded, (d) => `${d.reason}\0${d.category}`, ['quantity']);
    if (merged.size === 0) return;
    const now = new Date().toISOString();
    await this.db.write(async (c) => {
      for (const m of merged.values()) {
        await c.run(
          `INSERT INTO client_reports VALUES (?, ?, ?, ?, ?, ?::TIMESTAMP)
             ON CONFLICT (dataset, project_id, reason, category) DO UPDATE SET
               quantity = quantity + EXCLUDED.quantity, last_seen_at = EXCLUDED.last_seen_at`,
          [dataset, projectId, m.reason, m.category, m.quantity, now],
        );
      }
    });
  }

  async forProjects(dataset: Dataset, projectIds: string[]): Promise<Map<string, ClientReportSummary>> {
    const out = new Map<string, ClientReportSummary>();
    if (projectIds.length === 0) return out;
    const result = await this.db.reader().runAndReadAll(
      `SELECT project_id, reason, category, quantity, last_seen_at FROM client_reports
           WHERE dataset = ? AND project_id IN (${projectIds.map(() => '?').join(', ')}) ORDER BY quantity DESC, reason, category`,
      [dataset, ...projectIds],
    );
    for (const { project_id: projectId, ...row } of rows<DiscardedEvents & { project_id: string; last_seen_at: string }>(result)) {
      const summary = out.get(projectId) ?? { discarded_total: 0, discarded_events: [] };
      summary.discarded_total += row.quantity;
      summary.discarded_events.push(row);
      out.set(projectId, summary);
    }
    return out;
  }
}

/** One release's sessions in one environment: how many started, and how many of them ended badly. */
export interface SessionCounts {
  release: string;
  environment: string;
  sessions: number;
  crashed: number;
  errored: number;
  abnormal: number;
  /** The distinct ids (`did`) the sessions named, and whether that user's session crashed. */
  users?: Array<{ id: string; crashed: boolean }>;
}

export interface ReleaseHealthRow extends SessionCounts {
  /** 1 - crashed / sessions, null without sessions. */
  crash_free_rate: number | null;
  last_seen_at: string;
}

export class ReleaseHealth {
  constructor(private readonly db: Database) {}

  /** Adds the counts (summed per release and environment first). */
  async record(dataset: Dataset, projectId: string, counts: SessionCounts[]): Promise<void> {
    const merged = summed(counts, (c) => `${c.release}\0${c.environment}`, ['sessions', 'crashed', 'errored', 'abnormal']);
    if (merged.size === 0) return;
    const now = new Date().toISOString();
    const users = counts.flatMap((c) =>
      (c.users ?? []).map((u) => [dataset, projectId, c.release, c.environment, createHash('sha256').update(u.id).digest('hex'), u.crashed, now]),
    );
    await this.db.write(async (c) => {
      for (const user of users)
        await c.run(
          `INSERT INTO release_session_users VALUES (?, ?, ?, ?, ?, ?, ?::TIMESTAMP)
             ON CONFLICT (dataset, project_id, release, environment, user_hash) DO UPDATE SET
               crashed = crashed OR EXCLUDED.crashed, last_seen_at = EXCLUDED.last_seen_at`,
          user,
        );
      for (const m of merged.values()) {
        await c.run(
          `INSERT INTO release_sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::TIMESTAMP)
             ON CONFLICT (dataset, project_id, release, environment) DO UPDATE SET
               sessions = sessions + EXCLUDED.sessions, crashed = crashed + EXCLUDED.crashed,
               errored = errored + EXCLUDED.errored, abnormal = abnormal + EXCLUDED.abnormal, last_seen_at = EXCLUDED.last_seen_at`,
          [dataset, projectId, m.release, m.environment, m.sessions, m.crashed, m.errored, m.abnormal, now],
        );
      }
    });
  }

  /** Per project: its releases' session counts and crash-free rates, most recently seen first. */
  async forProjects(dataset: Dataset, projectIds: string[]): Promise<Map<string, ReleaseHealthRow[]>> {
    const out = new Map<string, ReleaseHealthRow[]>();
    if (projectIds.length === 0) return out;
    const result = await this.db.reader().runAndReadAll(
      `SELECT project_id, release, environment, sessions, crashed, errored, abnormal, last_seen_at FROM release_sessions
           WHERE dataset = ? AND project_id IN (${projectIds.map(() => '?').join(', ')}) ORDER BY last_seen_at DESC, release, environment`,
      [dataset, ...projectIds],
    );
    for (const row of rows<SessionCounts & { project_id: string; last_seen_at: string }>(result)) {
      const { project_id: projectId, ...counts } = row;
      const list = out.get(projectId) ?? [];
      list.push({ ...counts, crash_free_rate: counts.sessions > 0 ? 1 - counts.crashed / counts.sessions : null });
      out.set(projectId, list);
    }
    return out;
  }
}
