// Sets grouping_hash, issue_id, title, culprit and root_cause on every live error event.
import type { Processor } from '../../src/engine/component.js';
import { recordItems, type Item, type RecordItem } from '../../src/engine/item.js';
import { issueIdFor } from '../../src/records/issue-id.js';
import type { GroupingConfig } from './config.js';
import { computeGrouping } from './fingerprint.js';

export class GroupingProcessor implements Processor {
  constructor(private readonly config: GroupingConfig) {}

  process(items: Item[]): void {
    for (const item of recordItems('events', items)) {
      if (item.outcome !== undefined) continue;
      groupEvent(item, this.config);
    }
  }
}

/** Enriches one event in place (exported for callers that group outside a pipeline, e.g. a backfill). */
export function groupEvent(item: RecordItem<'events'>, config: Partial<GroupingConfig> = {}): void {
  const event = item.data;
  const grouping = computeGrouping(event, config);
  event.grouping_hash = grouping.hash;
  event.issue_id = issueIdFor(item.tenant, grouping.hash);
  event.title = grouping.title;
  event.culprit = grouping.culprit;
  event.root_cause = grouping.root_cause;
}
