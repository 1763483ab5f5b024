// The issues extension's public interface.
import { requireExtension, type ExtensionLookup } from '../../src/engine/extension.js';
import { IssuesExtension } from './extension.js';
import type { GroupingVersions } from './grouping-versions.js';
import type { IssueStates } from './issue-states.js';

export * from './issue-states.js';
export * from './grouping-versions.js';
export { ISSUES_MIGRATIONS } from './migrations.js';
export { issuesExtensionFactory } from './factory.js';
export { IssuesExtension } from './extension.js';

/** Every issue's status (a component that declares `extensions: ['issues']`). */
export function issueStatesOf(host: ExtensionLookup): IssueStates {
  return requireExtension(host, 'issues', IssuesExtension).issueStates;
}

/** Which grouping version each project is on, and its fallback during an upgrade. */
export function groupingVersionsOf(host: ExtensionLookup): GroupingVersions {
  return requireExtension(host, 'issues', IssuesExtension).groupingVersions;
}
