// The activity of a bulk change: each changed issue's status and assignee changes, recorded as a
// single PATCH records them (by comparing the issue before and after).
import type { Dataset } from '../../src/engine/item.js';
import type { Actor } from '../issues/issue-activity.js';
import type { Issue } from './issues.js';
import type { Storage } from './storage.js';

export async function recordBulkActivity(storage: Storage, dataset: Dataset, projectId: string, before: Issue[], actor: Actor): Promise<void> {
  const after = new Map(
    (
      await storage.issueFinder.byIds(
        dataset,
        projectId,
        before.map((i) => i.id),
      )
    ).map((i) => [i.id, i]),
  );
  for (const issue of before) {
    const now = after.get(issue.id);
    if (now) await storage.merges.recordChanges(dataset, issue, now, actor);
  }
}
