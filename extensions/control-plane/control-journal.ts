// What the shared control plane (src/kafka/control-plane.ts) replicates, as the stores hand it
// over: every change a person or a node makes to keys, projects, issue statuses, alert rules and
// artifact metadata, recorded by the store inside the same transaction as the change itself
// (Database.recordChange), so an acknowledged change is never lost on its way to Kafka.
import { alertRuleChangeKey, type AlertRuleChange } from '../alerts/alert-rules.js';
import { bundleChangeKey, type ArtifactBundleChange } from '../artifacts/artifacts.js';
import type { CatalogChange } from '../catalog/catalog.js';
import type { StatusChange } from '../issues/issue-states.js';

export type ControlChange = CatalogChange | ({ kind: 'issue_status' } & StatusChange) | AlertRuleChange | ArtifactBundleChange;

/** The compaction key of a change: one per row of the catalog. */
export function changeKey(change: ControlChange): string {
  switch (change.kind) {
    case 'project':
      return `project:${change.project.id}`;
    case 'key':
      return `key:${change.key.id}`;
    case 'issue_status':
      return `issue:${change.id}`;
    case 'alert_rule':
      return alertRuleChangeKey(change);
    case 'artifact_bundle':
      return bundleChangeKey(change);
  }
}
