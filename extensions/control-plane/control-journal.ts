// What the shared control plane (control-plane.ts) replicates, as the stores hand it over: every
// change a person or a node makes to keys, projects, issue statuses and openings, assignees,
// merges and activity, alert rules and the firings of issue rules with their deliveries'
// outcomes, artifact metadata and components' own rows (monitors), recorded by the store inside
// the same transaction as the change itself (Database.recordChange), so an acknowledged change is
// never lost on its way to Kafka.
import { alertRuleChangeKey, type AlertRuleChange } from '../alerts/alert-rules.js';
import type { AlertDeliveryChange, AlertFiringChange } from '../alerts/alert-sharing.js';
import { bundleChangeKey, type ArtifactBundleChange } from '../artifacts/artifacts.js';
import type { CatalogChange } from '../catalog/catalog.js';
import type { ComponentChange } from '../duckdb/journal.js';
import type { ActivityChange } from '../issues/issue-activity.js';
import type { IssueOpenedChange, StatusChange } from '../issues/issue-states.js';
import type { RedirectChange } from '../issues/issue-redirects.js';
import type { AssigneeChange } from '../query/issue-triage.js';

export type { ComponentChange } from '../duckdb/journal.js';

export type ControlChange =
  | CatalogChange
  | ({ kind: 'issue_status' } & StatusChange)
  | IssueOpenedChange
  | ({ kind: 'issue_assignee' } & AssigneeChange)
  | AlertRuleChange
  | AlertFiringChange
  | AlertDeliveryChange
  | ArtifactBundleChange
  | RedirectChange
  | ActivityChange
  | ComponentChange;

/** The compaction key of a change: one per row of the catalog. */
export function changeKey(change: ControlChange): string {
  switch (change.kind) {
    case 'project':
      return `project:${change.project.id}`;
    case 'key':
      return `key:${change.key.id}`;
    case 'issue_status':
      return `issue:${change.id}`;
    case 'issue_opened':
      return `issue_opened:${change.id}`;
    case 'issue_assignee':
      return `issue_assignee:${change.id}`;
    case 'alert_rule':
      return alertRuleChangeKey(change);
    case 'alert_firing':
      return `alert_firing:${change.firing.key}`;
    case 'alert_delivery':
      return `alert_delivery:${change.delivery.id}`;
    case 'artifact_bundle':
      return bundleChangeKey(change);
    case 'issue_redirect':
      return `issue_redirect:${change.dataset}:${change.grouping_id}`;
    case 'issue_activity':
      return `issue_activity:${change.activity.id}`;
    case 'component':
      return `${change.type}:${change.id}`;
  }
}
