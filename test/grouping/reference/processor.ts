// The grouping processor as it was before issue #30's third round (the reference the faster one
// must equal, result for result): the current version only, without the upgrade fallback.
import { recordItems, type Item, type RecordItem } from '../../../src/engine/item.js';
import { markVendorFrames } from '../../../src/records/in-app.js';
import { issueIdFor } from '../../../src/records/issue-id.js';
import type { GroupingConfig } from '../../../processors/grouping/config.js';
import type { CompiledRules } from '../../../processors/grouping/fingerprint.js';
import { computeGrouping } from './fingerprint.js';

export class ReferenceGroupingProcessor {
  constructor(
    private readonly config: GroupingConfig,
    private readonly rules?: CompiledRules,
  ) {}

  process(items: Item[]): void {
    for (const item of recordItems('events', items)) {
      if (item.outcome !== undefined) continue;
      groupEvent(item, this.config, this.rules);
    }
  }
}

export function groupEvent(item: RecordItem<'events'>, config: Partial<Pick<GroupingConfig, 'max_frames' | 'in_app_only'>> = {}, rules?: CompiledRules): void {
  const event = item.data;
  markVendorFrames(event.exception);
  const grouping = computeGrouping(event, { max_frames: config.max_frames, in_app_only: config.in_app_only, rules });
  event.grouping_hash = grouping.hash;
  event.issue_id = issueIdFor(item.tenant, grouping.hash);
  event.title = grouping.title;
  event.culprit = grouping.culprit;
  event.root_cause = grouping.root_cause;
}
