// Runs a grouping algorithm over the labeled corpus (test/grouping/corpus/corpus.jsonl) and scores
// the issues it makes against the bugs the events were built from: overall and per category, plus
// the bugs split into the most issues and the issues merging the most bugs.
//
// Each line's event is the body a client POSTs; it goes through the validation processor's checks
// and normalization first (as in the pipeline, which groups validated events), so a corpus event
// the service would reject fails the evaluation. Issues are per project, as issue ids are: the
// project is the release's app (`shop-web@3.9.0` → `shop-web`).
import { readFileSync } from 'node:fs';
import type { ErrorEvent } from '../../src/records/event.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { validateEvent } from '../../processors/validation/validate.js';
import { CORPUS_PATH } from '../../test/grouping/corpus/generate.js';
import { type Algorithm, group } from './grouper.js';
import { type ClusteringScores, scoreClustering } from './metrics.js';

export { CORPUS_PATH };

export interface CorpusLine {
  category: string;
  bug: string;
  event: Record<string, unknown>;
}

export interface LabeledEvent {
  /** Line number in the corpus file (1-based). */
  line: number;
  category: string;
  bug: string;
  project: string;
  event: ErrorEvent;
}

export interface GroupedEvent extends LabeledEvent {
  /** Project and grouping key: events with the same issue are one issue. */
  issue: string;
  components: readonly string[];
}

export interface Evaluation {
  algorithm: Algorithm;
  overall: ClusteringScores;
  categories: Record<string, ClusteringScores>;
  /** By the SDK's platform (see platformGroupOf): the goal holds for each. */
  platforms: Record<string, ClusteringScores>;
}

/** The SDK's `platform`; Flutter sends `other` with `dart` frames. */
export function platformGroupOf(event: ErrorEvent): string {
  if (event.platform === 'other' && event.exception?.stacktrace?.some((frame) => frame.platform === 'dart')) return 'dart';
  return event.platform ?? 'other';
}

export function readCorpus(path: string = CORPUS_PATH): CorpusLine[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const entries: CorpusLine[] = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    let entry: CorpusLine;
    try {
      entry = JSON.parse(text) as CorpusLine;
    } catch (error) {
      throw new Error(`${path}:${i + 1}: not JSON (${(error as Error).message})`, { cause: error });
    }
    if (typeof entry.category !== 'string' || typeof entry.bug !== 'string' || typeof entry.event !== 'object' || entry.event === null) {
      throw new Error(`${path}:${i + 1}: expected {"category", "bug", "event"}`);
    }
    entries.push(entry);
  });
  return entries;
}

const VALIDATION = validationConfigSchema.parse({});

/** The release's app: `shop-web@3.9.0` → `shop-web`. */
export function projectOf(release: string): string {
  const at = release.lastIndexOf('@');
  return at > 0 ? release.slice(0, at) : release;
}

/**
 * The stored event a body becomes: validated and normalized as the pipeline does. While the
 * ingest schema does not yet carry `exception.cause` (issue #12, item 4), validation discards it;
 * it is put back from the body so that grouping can use the chain either way.
 */
export function toErrorEvent(body: Record<string, unknown>, where = 'event'): ErrorEvent {
  const result = validateEvent(body, VALIDATION);
  if (!result.ok) throw new Error(`${where} is not a valid event: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const input = result.event;
  const event: ErrorEvent = { ...input, project_id: projectOf(input.release), received_at: input.timestamp, processing_errors: result.notes };
  const cause = (body.exception as { cause?: unknown } | undefined)?.cause;
  const exception = event.exception as { cause?: unknown };
  if (cause !== undefined && exception.cause === undefined) exception.cause = structuredClone(cause);
  return event;
}

export function labelEvents(lines: readonly CorpusLine[], path: string = CORPUS_PATH): LabeledEvent[] {
  return lines.map((line, i) => {
    const event = toErrorEvent(line.event, `${path}:${i + 1}`);
    return { line: i + 1, category: line.category, bug: line.bug, project: event.project_id, event };
  });
}

export function groupEvents(events: readonly LabeledEvent[], algorithm: Algorithm): GroupedEvent[] {
  return events.map((labeled) => {
    const { key, components } = group(labeled.event, algorithm);
    return { ...labeled, issue: `${labeled.project}/${key}`, components };
  });
}

/** Categories in the order they first appear in the corpus. */
export function categoriesOf(events: readonly { category: string }[]): string[] {
  return [...new Set(events.map((event) => event.category))];
}

export function score(grouped: readonly GroupedEvent[], algorithm: Algorithm): Evaluation {
  const categories: Record<string, ClusteringScores> = {};
  for (const category of categoriesOf(grouped)) {
    categories[category] = scoreClustering(grouped.filter((event) => event.category === category));
  }
  const platforms: Record<string, ClusteringScores> = {};
  for (const platform of [...new Set(grouped.map((event) => platformGroupOf(event.event)))].sort()) {
    platforms[platform] = scoreClustering(grouped.filter((event) => platformGroupOf(event.event) === platform));
  }
  return { algorithm, overall: scoreClustering(grouped), categories, platforms };
}

// ---------------------------------------------------------------------------------------------
// Explaining: worst splits and merges
// ---------------------------------------------------------------------------------------------

export interface Split {
  bug: string;
  category: string;
  events: number;
  /** Sizes of the issues the bug's events went to, largest first. */
  issues: number[];
  /** The two largest issues' samples: how their components differ. */
  diff: string[];
  samples: [string, string];
}

export interface Merge {
  issue: string;
  events: number;
  /** The bugs in the issue with their event counts, most first. */
  bugs: Array<{ bug: string; events: number; sample: string }>;
  components: readonly string[];
}

export interface Explanation {
  splits: Split[];
  merges: Merge[];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** `- a` / `+ b` lines of a longest-common-subsequence diff (common runs shown as `  … n same`). */
export function diffComponents(a: readonly string[], b: readonly string[], maxLines = 12): string[] {
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out: string[] = [];
  let same = 0;
  const flush = () => {
    if (same > 0) out.push(`  … ${same} same`);
    same = 0;
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      same++;
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      flush();
      out.push(`+ ${b[j++]}`);
    } else {
      flush();
      out.push(`- ${a[i++]}`);
    }
  }
  flush();
  return out.length > maxLines ? [...out.slice(0, maxLines - 1), `  … ${out.length - maxLines + 1} more lines`] : out;
}

/** What tells one occurrence from another at a glance: release and the SDK's environment tags. */
function describe(event: ErrorEvent): string {
  const tags = Object.values(event.tags ?? {}).join(', ');
  return tags ? `${event.release} (${tags})` : event.release;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `Type: value`, then ` <- Cause: value` for each link of the chain. */
export function titleOf(event: ErrorEvent, max = 120): string {
  const parts: string[] = [];
  let exception: { type: string; value: string; cause?: unknown } | undefined = event.exception;
  while (exception !== undefined && parts.length < 4) {
    parts.push(exception.value ? `${exception.type}: ${exception.value}` : exception.type);
    exception = exception.cause as typeof exception;
  }
  if (event.message && !event.exception.value) parts[0] += ` "${event.message}"`;
  return oneLine(parts.join(' <- '), max);
}

export function explain(grouped: readonly GroupedEvent[], limit = 10): Explanation {
  const splits: Split[] = [];
  for (const [bug, events] of groupBy(grouped, (event) => event.bug)) {
    const issues = [...groupBy(events, (event) => event.issue).values()].sort((x, y) => y.length - x.length);
    if (issues.length < 2) continue;
    const [first, second] = [issues[0][0], issues[1][0]];
    splits.push({
      bug,
      category: first.category,
      events: events.length,
      issues: issues.map((list) => list.length),
      diff: diffComponents(first.components, second.components),
      samples: [describe(first.event), describe(second.event)],
    });
  }
  splits.sort((x, y) => y.issues.length - x.issues.length || y.events - x.events || x.bug.localeCompare(y.bug));

  const merges: Merge[] = [];
  for (const [issue, events] of groupBy(grouped, (event) => event.issue)) {
    const bugs = [...groupBy(events, (event) => event.bug).entries()].sort((x, y) => y[1].length - x[1].length);
    if (bugs.length < 2) continue;
    merges.push({
      issue,
      events: events.length,
      bugs: bugs.map(([bug, list]) => ({ bug, events: list.length, sample: titleOf(list[0].event) })),
      components: events[0].components,
    });
  }
  merges.sort((x, y) => y.bugs.length - x.bugs.length || y.events - x.events || x.issue.localeCompare(y.issue));
  return { splits: splits.slice(0, limit), merges: merges.slice(0, limit) };
}

/** The issue's goal: pairwise F1 >= 0.98 with precision and recall each >= 0.97. */
export const GOAL = { f1: 0.98, precision: 0.97, recall: 0.97 } as const;

export function meetsGoal(scores: ClusteringScores): boolean {
  const { pairwise } = scores;
  return pairwise.f1 >= GOAL.f1 && pairwise.precision >= GOAL.precision && pairwise.recall >= GOAL.recall;
}
