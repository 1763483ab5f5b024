// What the read API needs: the catalog (keys, projects), the merged read side, the public URL
// that permalinks and DSNs are built on, and the artifact store with the upload's limits.
import type { PageHandler } from '../../src/http/host.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import type { ArtifactStore } from '../../extensions/artifacts/artifacts.js';
import type { Catalog } from '../../extensions/catalog/catalog.js';
import type { ClientReports, EventAttachments, ReleaseHealth } from '../../extensions/sentry-ingest/index.js';
import type { Storage } from '../../extensions/query/index.js';

export interface ApiContext {
  catalog: Catalog;
  storage: Storage;
  /** The service's public URL, without a trailing slash. */
  appUrl: string;
  /** Alert rules and their outbox (control-plane data: served whatever the pipelines). */
  alerts: Alerts;
  /** Uploaded source maps and symbol files (control-plane data: served whatever the pipelines). */
  artifacts: ArtifactStore;
  /** service.limits: the upload's size cap and how long its body may stall. */
  limits: { sourcemap_upload_bytes: number; body_timeout_ms: number };
  /** Attachments sent with events by Sentry SDKs (listed on GET /v1/events/{id}). */
  attachments: EventAttachments;
  /** Sessions per release (release health on GET /v1/projects). */
  releaseHealth: ReleaseHealth;
  /** What Sentry SDKs reported discarding (client reports, on GET /v1/projects). */
  clientReports: ClientReports;
  /** The web app's issue page: what a browser without a key gets at the permalink. */
  issuePage?: PageHandler;
}
