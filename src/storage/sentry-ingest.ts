// What Sentry-SDK ingest keeps beside the pipelines' records: the attachments sent with events
// (metadata in the catalog, bytes once per content under `data_dir/attachments`, written and
// synced before the sender is answered) and release health (sessions per release, from `session`
// and `sessions` items).
import { createHash, randomBytes } from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset } from '../engine/item.js';
import type { Database } from './database.js';
import { makePrivateDir } from './private-files.js';
import { rows } from './rows.js';

export interface EventAttachment {
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
}

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
    const row: EventAttachment = {
      name: attachment.name,
      content_type: attachment.contentType ?? null,
      attachment_type: attachment.attachmentType ?? null,
      size: attachment.bytes.length,
      sha256,
      created_at: new Date().toISOString(),
    };
    await this.db.write(async (c) => {
      await c.run(
        `INSERT OR REPLACE INTO event_attachments (dataset, project_id, event_id, name, content_type, attachment_type, size, sha256, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::TIMESTAMP)`,
        [dataset, projectId, eventId, row.name, row.content_type, row.attachment_type, row.size, row.sha256, row.created_at],
      );
    });
    return row;
  }

  async list(dataset: Dataset, projectId: string, eventId: string): Promise<EventAttachment[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT name, content_type, attachment_type, size, sha256, created_at FROM event_attachments
           WHERE dataset = ? AND project_id = ? AND event_id = ? ORDER BY created_at, name`,
      [dataset, projectId, eventId],
    );
    return rows<EventAttachment>(result);
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
    const merged = new Map<string, SessionCounts>();
    for (const c of counts) {
      const key = `${c.release}\0${c.environment}`;
      const into = merged.get(key);
      if (!into) merged.set(key, { ...c });
      else {
        into.sessions += c.sessions;
        into.crashed += c.crashed;
        into.errored += c.errored;
        into.abnormal += c.abnormal;
      }
    }
    if (merged.size === 0) return;
    const now = new Date().toISOString();
    await this.db.write(async (c) => {
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
