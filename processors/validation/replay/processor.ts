import type { Processor } from '../../../src/engine/component.js';
import { reject, type Item } from '../../../src/engine/item.js';
import type { ReplayChunkInput, ReplaySegment } from '../../../src/records/replay.js';
import { RetentionWindow } from '../../../src/records/retention-window.js';
import { validateReplayChunk } from './validate-replay.js';

/** Turns decoded POST /v1/replays chunks into ReplaySegment records, or rejects them with field-level details. */
export class ReplayValidationProcessor implements Processor {
  private readonly retention?: RetentionWindow;

  /** `retentionDays`: service.retention.replays_days; segments that end earlier are rejected (none when undefined). */
  constructor(retentionDays?: number) {
    if (retentionDays !== undefined) this.retention = new RetentionWindow('replays', retentionDays);
  }

  process(items: Item[]): void {
    for (const item of items) {
      const result = validateReplayChunk(item.data as ReplayChunkInput);
      if (!result.ok) {
        reject(item, 'the replay chunk is invalid', result.errors);
        continue;
      }
      const expired = this.retention?.expired(Date.parse(result.segment.finished_at), item.receivedAt);
      if (expired) {
        reject(item, 'the replay chunk is invalid', [{ path: 'timestamp', message: expired }]);
        continue;
      }
      const segment: ReplaySegment = { ...result.segment, project_id: item.tenant.projectId, received_at: new Date(item.receivedAt).toISOString() };
      item.data = segment;
    }
  }
}
