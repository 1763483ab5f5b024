// The grouping algorithms the evaluation compares. `current` is the grouping processor as it is;
// `legacy` is the algorithm events were grouped by before it (for now the same code: it becomes
// the frozen old algorithm when the new one lands, so that the two are shown side by side).
import type { ErrorEvent } from '../../src/records/event.js';
import { computeGrouping } from '../../processors/grouping/fingerprint.js';

export type Algorithm = 'current' | 'legacy';
export const ALGORITHMS: readonly Algorithm[] = ['current', 'legacy'];

export interface Grouped {
  /** Events with the same key are one issue (within a project). */
  key: string;
  /** What the key was computed from, for explaining splits and merges. */
  components: readonly string[];
}

export function group(event: ErrorEvent, algorithm: Algorithm): Grouped {
  switch (algorithm) {
    case 'current':
    case 'legacy': {
      const result = computeGrouping(event);
      return { key: result.hash, components: result.components };
    }
  }
}

export function groupingKey(event: ErrorEvent, algorithm: Algorithm): string {
  return group(event, algorithm).key;
}
