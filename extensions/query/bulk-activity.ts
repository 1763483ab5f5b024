// The activity of a bulk change: each changed issue's status and assignee changes, recorded as a
// single PATCH records them (by comparing the issue before and after), in one write.
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
  const changes = before.flatMap((issue) => {
    const now = after.get(issue.id);
    return now ? [{ before: issue, after: now }] : [];
  });
  await storage.merges.recordChanges(dataset, changes, actor);
}
