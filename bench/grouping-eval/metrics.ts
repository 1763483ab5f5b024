// Clustering quality of a grouping against labels: pairwise and B-cubed precision, recall and F1.
//
// Pairwise, over all unordered pairs of events: a pair is a true positive when both events are of
// the same bug and in the same issue. Precision = TP / pairs in the same issue (of those the
// grouper put together, how many belong together); recall = TP / pairs of the same bug (of those
// that belong together, how many it put together). With no pair put together precision is 1, with
// no pair belonging together recall is 1.
//
// B-cubed, per event then averaged: precision = |its issue ∩ its bug| / |its issue|, recall =
// |its issue ∩ its bug| / |its bug|. Pairwise weighs big bugs quadratically; B-cubed weighs every
// event the same, so a small bug split in two shows there too.

export interface Labeled {
  bug: string;
  issue: string;
}

export interface Scores {
  precision: number;
  recall: number;
  f1: number;
}

export interface PairwiseScores extends Scores {
  /** Pairs of the same bug put in the same issue. */
  truePairs: number;
  /** Pairs put in the same issue. */
  issuePairs: number;
  /** Pairs of the same bug. */
  bugPairs: number;
}

export interface ClusteringScores {
  events: number;
  bugs: number;
  issues: number;
  pairwise: PairwiseScores;
  bcubed: Scores;
}

const pairs = (n: number): number => (n * (n - 1)) / 2;

export function f1(precision: number, recall: number): number {
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

function count<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** `bug` and `issue` may contain any character: the cell key is their JSON pair. */
const cellOf = (event: Labeled): string => JSON.stringify([event.bug, event.issue]);

export function scoreClustering(events: readonly Labeled[]): ClusteringScores {
  const byBug = count(events, (event) => event.bug);
  const byIssue = count(events, (event) => event.issue);
  const byCell = count(events, cellOf);

  let truePairs = 0;
  for (const n of byCell.values()) truePairs += pairs(n);
  let issuePairs = 0;
  for (const n of byIssue.values()) issuePairs += pairs(n);
  let bugPairs = 0;
  for (const n of byBug.values()) bugPairs += pairs(n);
  const precision = issuePairs === 0 ? 1 : truePairs / issuePairs;
  const recall = bugPairs === 0 ? 1 : truePairs / bugPairs;

  let b3Precision = 0;
  let b3Recall = 0;
  for (const event of events) {
    const cell = byCell.get(cellOf(event))!;
    b3Precision += cell / byIssue.get(event.issue)!;
    b3Recall += cell / byBug.get(event.bug)!;
  }
  const n = events.length;
  const bcubedPrecision = n === 0 ? 1 : b3Precision / n;
  const bcubedRecall = n === 0 ? 1 : b3Recall / n;

  return {
    events: n,
    bugs: byBug.size,
    issues: byIssue.size,
    pairwise: { precision, recall, f1: f1(precision, recall), truePairs, issuePairs, bugPairs },
    bcubed: { precision: bcubedPrecision, recall: bcubedRecall, f1: f1(bcubedPrecision, bcubedRecall) },
  };
}
