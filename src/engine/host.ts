// What the service offers the components it creates. Components take what they need from it;
// the engine itself only passes it along.
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.js';
import type { ServiceSettings } from '../config/service-schema.js';
import type { HttpHost } from '../http/host.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import type { Catalog } from '../../extensions/catalog/catalog.js';
import type { ArtifactLookup } from '../records/artifact.js';
import type { CheckinSink } from '../records/checkin.js';
import type { Database } from '../../extensions/duckdb/database.js';
import type { GroupingVersions } from '../../extensions/issues/grouping-versions.js';
import type { IssueStates } from '../../extensions/issues/issue-states.js';
import type { Quarantine } from '../../extensions/quarantine/quarantine.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { ExtensionLookup } from './extension.js';

export interface Host extends ExtensionLookup {
  logger: Logger;
  metrics: Metrics;
  settings: ServiceSettings;
  /** The service's DuckDB database: the catalog, and the tables of exporters that keep theirs there. */
  database: Database;
  /** Organizations, projects and API keys. */
  catalog: Catalog;
  /** The status of every issue (the issues processor and PATCH /v1/issues keep it). */
  issueStates: IssueStates;
  /** Which grouping version each project is on, and its fallback during an upgrade. */
  groupingVersions: GroupingVersions;
  /** Where exporters keep acknowledged items they cannot store, with the reason. */
  quarantine: Quarantine;
  /** Uploaded source maps, mapping and symbol files, for the symbolication processor. */
  artifacts: ArtifactLookup;
  /** Alert rules, their firings and the outbox of deliveries (the alerting processor and /v1/alerts). */
  alerts: Alerts;
  auth: Authenticator;
  /** The service's HTTP server, on which receivers mount routes. */
  http: HttpHost;
  /** Set by the monitors receiver when it runs: where Sentry `check_in` envelope items go. */
  checkins?: CheckinSink;
  /** Ports that receivers with listeners of their own bound, by receiver id (for logs and tests). */
  listeners: Map<string, number>;
}
