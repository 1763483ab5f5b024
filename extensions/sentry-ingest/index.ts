// The sentry_ingest extension's public interface.
export { SentryIngestExtension, sentryIngestExtensionFactory, sentryIngestOf, SENTRY_INGEST_EXTENSION_ID } from './extension.js';
export {
  attachmentId,
  type ClientReportSummary,
  type ClientReports,
  type DiscardedEvents,
  type EventAttachment,
  type EventAttachments,
  type NewAttachment,
  type ReleaseHealth,
  type ReleaseHealthRow,
  type SessionCounts,
} from './stores.js';
