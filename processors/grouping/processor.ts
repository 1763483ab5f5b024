// Sets grouping_hash, issue_id, title, culprit and root_cause on every live error event (and,
// while its project moves to a new grouping version, the issue the previous version gives it).
import type { Processor } from '../../src/engine/component.js';
import { recordItems, type Item, type RecordItem } from '../../src/engine/item.js';
import { issueIdFor } from '../../src/records/issue-id.js';
import type { GroupingVersions } from '../../extensions/issues/grouping-versions.js';
import type { GroupingConfig } from './config.js';
import { markVendorFrames } from './vendor.js';
import { computeGrouping, CURRENT_GROUPING_VERSION, groupingHash, type CompiledRules, type GroupingVersion } from './fingerprint.js';

export class GroupingProcessor implements Processor {
  constructor(
    private readonly config: GroupingConfig,
    private readonly rules?: CompiledRules,
    private readonly versions?: GroupingVersions,
  ) {}

  async start(): Promise<void> {
    await this.versions?.upgrade(CURRENT_GROUPING_VERSION, this.config.upgrade_fallback_days);
  }

  process(items: Item[]): void {
    const now = Date.now();
    for (const item of recordItems('events', items)) {
      if (item.outcome !== undefined) continue;
      groupEvent(item, this.config, this.rules);
      const fallback = this.versions?.fallbackFor(item.tenant.projectId, now);
      if (fallback !== undefined) {
        // Version 1 knew no rules: its hash is the one its issues were opened under.
        const hash = groupingHash(item.data, {
          max_frames: this.config.max_frames,
          in_app_only: this.config.in_app_only,
          version: fallback as GroupingVersion,
        });
        if (hash !== item.data.grouping_hash) item.data.grouping_fallback_issue_id = issueIdFor(item.tenant, hash);
      }
    }
  }
}

/** Enriches one event in place (exported for callers that group outside a pipeline, e.g. a backfill). */
export function groupEvent(item: RecordItem<'events'>, config: Partial<Pick<GroupingConfig, 'max_frames' | 'in_app_only'>> = {}, rules?: CompiledRules): void {
  const event = item.data;
  const known = markVendorFrames(event);
  const grouping = computeGrouping(event, { max_frames: config.max_frames, in_app_only: config.in_app_only, rules, known });
  event.grouping_hash = grouping.hash;
  event.issue_id = issueIdFor(item.tenant, grouping.hash);
  event.title = grouping.title;
  event.culprit = grouping.culprit;
  event.root_cause = grouping.root_cause;
}
