// What the shared control plane (src/kafka/control-plane.ts) replicates, as the stores hand it
// over: every change a person or a node makes to keys, projects, issue statuses, alert rules and
// artifact metadata, recorded by the store inside the same transaction as the change itself
// (Database.recordChange), so an acknowledged change is never lost on its way to Kafka.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { AlertRule } from '../alerts/alert-rules.js';
import type { Bundle } from '../artifacts/artifacts.js';
import type { CatalogChange } from '../catalog/catalog.js';
import type { StatusChange } from '../issues/issue-states.js';
import type { AssigneeChange } from '../query/issue-triage.js';
import type { ActivityChange } from '../issues/issue-activity.js';
import type { RedirectChange } from '../issues/issue-redirects.js';

/** An alert rule's full definition, or its deletion (`deleted`), at `updated_at` (epoch ms). */
export type AlertRuleChange =
  { kind: 'alert_rule'; rule: Omit<AlertRule, 'last_evaluated_at' | 'last_value'> } | { kind: 'alert_rule'; id: string; deleted: true; updated_at: number };

/** An artifact bundle's metadata (its bytes are on the shared artifacts path already), or its deletion. */
export type ArtifactBundleChange = { kind: 'artifact_bundle'; bundle: Bundle; digest: string } | { kind: 'artifact_bundle'; id: string; deleted: true };

/**
 * A row a component keeps in tables of its own (the monitors receiver's monitors): `type` names
 * the applier the component registered (Journal.onComponentChange), `id` the row within it; `body`
 * is the row's full state, or absent for a deletion, at `at` (epoch ms).
 */
export type ComponentChange = { kind: 'component'; type: string; id: string; at: number; body?: Record<string, unknown> };

export type ControlChange =
  | CatalogChange
  | ({ kind: 'issue_status' } & StatusChange)
  | ({ kind: 'issue_assignee' } & AssigneeChange)
  | AlertRuleChange
  | ArtifactBundleChange
  | RedirectChange
  | ActivityChange
  | ComponentChange;

/** Where changes go: the control plane's outbox table, written in the caller's transaction. */
export interface Journal {
  record(connection: DuckDBConnection, change: ControlChange): Promise<void>;
  /** After a transaction that recorded changes committed: they may be sent. */
  committed(): void;
  /**
   * Applies the changes of a component's `type`, from the topic and from any received before this
   * call, in order (a component registers when it starts, after the control plane does).
   */
  onComponentChange?(type: string, apply: (change: ComponentChange) => Promise<void>): void;
}

/** The compaction key of a change: one per row of the catalog. */
export function changeKey(change: ControlChange): string {
  switch (change.kind) {
    case 'project':
      return `project:${change.project.id}`;
    case 'key':
      return `key:${change.key.id}`;
    case 'issue_status':
      return `issue:${change.id}`;
    case 'issue_assignee':
      return `issue_assignee:${change.id}`;
    case 'alert_rule':
      return `alert_rule:${'rule' in change ? change.rule.id : change.id}`;
    case 'artifact_bundle':
      return `artifact_bundle:${'bundle' in change ? change.bundle.id : change.id}`;
    case 'issue_redirect':
      return `issue_redirect:${change.dataset}:${change.grouping_id}`;
    case 'issue_activity':
      return `issue_activity:${change.activity.id}`;
    case 'component':
      return `${change.type}:${change.id}`;
  }
}

/** When the row of `key` was deleted (epoch ms), if it was: a change older than that is stale. */
export async function deletedAt(connection: DuckDBConnection, key: string): Promise<number | undefined> {
  const result = await connection.runAndReadAll('SELECT deleted_at FROM control_tombstones WHERE key = ?', [key]);
  const at = result.getRows()[0]?.[0];
  return at === undefined || at === null ? undefined : Number(at);
}

/** Marks the row of `key` deleted at `at` (the later of two deletions stays). */
export async function markDeleted(connection: DuckDBConnection, key: string, at: number): Promise<void> {
  await connection.run(
    'INSERT INTO control_tombstones VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET deleted_at = greatest(control_tombstones.deleted_at, excluded.deleted_at)',
    [key, at],
  );
}
