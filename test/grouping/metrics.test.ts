import { describe, expect, it } from 'vitest';
import { diffComponents } from '../../bench/grouping-eval/evaluate.js';
import { f1, scoreClustering, type Labeled } from '../../bench/grouping-eval/metrics.js';

const labeled = (bugs: string, issues: string): Labeled[] => [...bugs].map((bug, i) => ({ bug, issue: issues[i] }));

describe('scoreClustering', () => {
  it('scores a small grouping computed by hand', () => {
    // Bugs A A A B B C, issues 1 1 1 1 2 3: bug A is whole, B is split, issue 1 merges A with one B.
    const scores = scoreClustering(labeled('AAABBC', '111123'));
    expect(scores).toMatchObject({ events: 6, bugs: 3, issues: 3 });
    // Same-issue pairs: C(4,2) = 6; same-bug pairs: C(3,2) + C(2,2) = 4; both: the 3 pairs of A.
    expect(scores.pairwise).toMatchObject({ truePairs: 3, issuePairs: 6, bugPairs: 4, precision: 0.5, recall: 0.75 });
    expect(scores.pairwise.f1).toBeCloseTo(0.6, 12);
    // B-cubed precision: A 3/4 ×3, B(1) 1/4, B(2) 1, C 1 → 4.5 / 6. Recall: A 1 ×3, B 1/2 ×2, C 1 → 5 / 6.
    expect(scores.bcubed.precision).toBeCloseTo(0.75, 12);
    expect(scores.bcubed.recall).toBeCloseTo(5 / 6, 12);
    expect(scores.bcubed.f1).toBeCloseTo(15 / 19, 12);
  });

  it('is perfect when issues are the bugs, whatever the names', () => {
    const scores = scoreClustering(labeled('AABBBC', 'xxyyyz'));
    expect(scores.pairwise).toMatchObject({ precision: 1, recall: 1, f1: 1 });
    expect(scores.bcubed).toMatchObject({ precision: 1, recall: 1, f1: 1 });
  });

  it('counts precision as 1 when nothing is put together, recall as 1 when nothing belongs together', () => {
    const split = scoreClustering(labeled('AAAA', '1234'));
    expect(split.pairwise).toMatchObject({ precision: 1, recall: 0, f1: 0 });
    expect(split.bcubed.recall).toBeCloseTo(0.25, 12);
    const merged = scoreClustering(labeled('ABCD', '1111'));
    expect(merged.pairwise).toMatchObject({ precision: 0, recall: 1, f1: 0 });
    expect(merged.bcubed.precision).toBeCloseTo(0.25, 12);
  });

  it('keeps bug and issue names apart (no accidental cell collisions)', () => {
    const scores = scoreClustering([
      { bug: 'a\u0000b', issue: 'c' },
      { bug: 'a', issue: 'b\u0000c' },
    ]);
    expect(scores.pairwise).toMatchObject({ truePairs: 0, issuePairs: 0, bugPairs: 0 });
  });

  it('f1 of zero precision and recall is 0', () => {
    expect(f1(0, 0)).toBe(0);
  });
});

describe('diffComponents', () => {
  it('shows what one side has and the other lacks, with the common runs counted', () => {
    expect(diffComponents(['T', 'a:f', 'b:g', 'c:h'], ['T', 'a:f', 'x:g', 'c:h'])).toEqual(['  … 2 same', '+ x:g', '- b:g', '  … 1 same']);
  });
});
