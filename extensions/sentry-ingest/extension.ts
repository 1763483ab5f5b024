// What Sentry SDKs send beside events, spans and replays, as an extension that owns its tables:
// the attachments of events (event_attachments, and the bytes under data_dir/attachments), release
// health (release_sessions, release_session_users) and client reports (client_reports). It is the
// one writer of those tables: the Sentry receiver hands it what an envelope carried, the read API
// and the query layer read them, retention expires attachments with their events.
import { z } from 'zod';
import type { ExpiryResult } from '../../src/engine/component.js';
import { requireExtension, type Extension, type ExtensionFactory, type ExtensionLookup } from '../../src/engine/extension.js';
import type { Dataset } from '../../src/engine/item.js';
import { databaseOf } from '../duckdb/index.js';
import type { Database } from '../duckdb/database.js';
import {
  ClientReports,
  EventAttachments,
  ReleaseHealth,
  type DiscardedEvents,
  type EventAttachment,
  type NewAttachment,
  type SessionCounts,
} from './stores.js';

export class SentryIngestExtension implements Extension {
  /** Reads of the attachments (GET /v1/events/{id} lists them, …/attachments/{id} serves one). */
  readonly attachments: EventAttachments;
  /** Sessions per release (release health on GET /v1/projects). */
  readonly releaseHealth: ReleaseHealth;
  /** What SDKs reported discarding (on GET /v1/projects). */
  readonly clientReports: ClientReports;

  constructor(db: Database, dataDir: string) {
    this.attachments = new EventAttachments(db, dataDir);
    this.releaseHealth = new ReleaseHealth(db);
    this.clientReports = new ClientReports(db);
  }

  /** Nothing to open: its tables are created by the catalog's migrations, its directory on the first attachment. */
  async start(): Promise<void> {}

  /** Stores an event's attachment, its bytes synced before this resolves. */
  addAttachment(dataset: Dataset, projectId: string, eventId: string, attachment: NewAttachment): Promise<EventAttachment> {
    return this.attachments.add(dataset, projectId, eventId, attachment);
  }

  /** Adds sessions' counts to their releases' health. */
  recordSessions(dataset: Dataset, projectId: string, counts: SessionCounts[]): Promise<void> {
    return this.releaseHealth.record(dataset, projectId, counts);
  }

  /** Adds what an SDK reported discarding. */
  recordClientReports(dataset: Dataset, projectId: string, discarded: DiscardedEvents[]): Promise<void> {
    return this.clientReports.record(dataset, projectId, discarded);
  }

  /** Retention: the attachments of events dated before `firstKeptDay` (YYYY-MM-DD). */
  expire(firstKeptDay: string): Promise<ExpiryResult> {
    return this.attachments.expire(firstKeptDay);
  }
}

export const SENTRY_INGEST_EXTENSION_ID = 'sentry_ingest';

/** The running sentry_ingest extension (the http_api receiver's Sentry routes store through it). */
export function sentryIngestOf(host: ExtensionLookup): SentryIngestExtension {
  return requireExtension(host, SENTRY_INGEST_EXTENSION_ID, SentryIngestExtension);
}

export const sentryIngestConfigSchema = z.object({}).strict();

export const sentryIngestExtensionFactory: ExtensionFactory<z.infer<typeof sentryIngestConfigSchema>> = {
  kind: 'extension',
  type: SENTRY_INGEST_EXTENSION_ID,
  description: 'Stores what Sentry SDKs send beside events: attachments, sessions (release health) and client reports',
  configSchema: sentryIngestConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb'],
  // The database comes from the duckdb extension once it is looked up by id.
  create: ({ host }) => new SentryIngestExtension(databaseOf(host), host.settings.data_dir),
};
