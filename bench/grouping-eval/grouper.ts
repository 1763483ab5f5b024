// The grouping algorithms the evaluation compares: `current` is the grouping processor's version
// (CURRENT_GROUPING_VERSION), `legacy` version 1, frozen, as Faultline grouped before issue #12.
import type { ErrorEvent } from '../../src/records/event.js';
import { computeGrouping, CURRENT_GROUPING_VERSION } from '../../processors/grouping/fingerprint.js';

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
      const result = computeGrouping(event, { version: algorithm === 'legacy' ? 1 : CURRENT_GROUPING_VERSION });
      return { key: result.hash, components: result.components };
    }
  }
}

export function groupingKey(event: ErrorEvent, algorithm: Algorithm): string {
  return group(event, algorithm).key;
}
