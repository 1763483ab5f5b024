// `npm run grouping-eval [-- --json] [--explain] [--category NAME] [--limit N] [--corpus FILE]`
// Groups the labeled corpus with each algorithm and prints pairwise and B-cubed precision, recall
// and F1, overall and per category; `--explain` adds the bugs split into the most issues and the
// issues merging the most bugs, with what differs (`--category` for one category's); `--json`
// prints the same as JSON.
import { parseArgs } from 'node:util';
import { ALGORITHMS } from './grouper.js';
import { CORPUS_PATH, type Evaluation, type Explanation, explain, GOAL, groupEvents, labelEvents, meetsGoal, readCorpus, score } from './evaluate.js';
import type { ClusteringScores } from './metrics.js';

const { values: args } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    limit: { type: 'string', default: '10' },
    category: { type: 'string' },
    corpus: { type: 'string', default: CORPUS_PATH },
  },
});

const path = args.corpus;
const events = labelEvents(readCorpus(path), path);
const evaluations: Evaluation[] = [];
let explanation: Explanation | undefined;
for (const algorithm of ALGORITHMS) {
  const grouped = groupEvents(events, algorithm);
  evaluations.push(score(grouped, algorithm));
  if (algorithm === 'current' && args.explain) {
    const shown = args.category === undefined ? grouped : grouped.filter((event) => event.category === args.category);
    if (shown.length === 0) throw new Error(`no events of category ${args.category}`);
    explanation = explain(shown, Number(args.limit));
  }
}
const [current] = evaluations;

if (args.json) {
  const out = {
    corpus: path,
    goal: { ...GOAL, met: meetsGoal(current.overall) && Object.values(current.platforms).every(meetsGoal) },
    algorithms: Object.fromEntries(
      evaluations.map((evaluation) => [
        evaluation.algorithm,
        { overall: evaluation.overall, categories: evaluation.categories, platforms: evaluation.platforms },
      ]),
    ),
    ...(explanation && { explain: explanation }),
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
} else {
  process.stdout.write(formatTable(evaluations) + '\n');
  if (explanation) process.stdout.write('\n' + formatExplanation(explanation) + '\n');
}

function fixed(x: number): string {
  return x.toFixed(3);
}

function row(label: string, s: ClusteringScores): string {
  const p = s.pairwise;
  const b = s.bcubed;
  return [
    label.padEnd(22),
    String(s.events).padStart(6),
    String(s.bugs).padStart(5),
    String(s.issues).padStart(7),
    fixed(p.precision).padStart(8),
    fixed(p.recall).padStart(7),
    fixed(p.f1).padStart(7),
    fixed(b.precision).padStart(8),
    fixed(b.recall).padStart(7),
    fixed(b.f1).padStart(7),
  ].join(' ');
}

function formatTable(all: readonly Evaluation[]): string {
  const [first, ...others] = all;
  const header = [
    ''.padEnd(22),
    'events'.padStart(6),
    'bugs'.padStart(5),
    'issues'.padStart(7),
    'pair P'.padStart(8),
    'pair R'.padStart(7),
    'pair F1'.padStart(7),
    'B3 P'.padStart(8),
    'B3 R'.padStart(7),
    'B3 F1'.padStart(7),
  ].join(' ');
  const lines = [`Grouping quality on ${path}`, '', `${first.algorithm}, by category:`, header];
  for (const [category, scores] of Object.entries(first.categories)) lines.push(row(category, scores));
  lines.push('', `${first.algorithm}, by SDK platform (each must meet the goal):`, header);
  for (const [platform, scores] of Object.entries(first.platforms)) lines.push(row(meetsGoal(scores) ? platform : `${platform} (below goal)`, scores));
  lines.push('', 'all events:', header);
  for (const evaluation of all) lines.push(row(evaluation.algorithm, evaluation.overall));
  const p = first.overall.pairwise;
  lines.push(
    '',
    `Goal (issues #12, #32): pairwise F1 >= ${GOAL.f1}, precision and recall >= ${GOAL.precision}, overall and per SDK platform: ` +
      `${meetsGoal(first.overall) && Object.values(first.platforms).every(meetsGoal) ? 'met' : 'not met'} by ${first.algorithm} (F1 ${fixed(p.f1)}, P ${fixed(p.precision)}, R ${fixed(p.recall)}).`,
  );
  if (others.length > 0) lines.push('Per-category figures count pairs within the category; `all events` counts every pair, across categories too.');
  return lines.join('\n');
}

function formatExplanation(explanation: Explanation): string {
  const lines = ['Worst splits (bugs spread over the most issues): the two largest issues, how their components differ'];
  for (const split of explanation.splits) {
    lines.push('', `${split.bug}: ${split.events} events in ${split.issues.length} issues (${split.issues.join(', ')})`);
    lines.push(`  largest:  ${split.samples[0]}`, `  next:     ${split.samples[1]}`);
    for (const line of split.diff) lines.push(`    ${line}`);
  }
  lines.push('', 'Worst merges (issues holding the most bugs): a sample of each bug');
  for (const merge of explanation.merges) {
    const head = merge.components.length > 6 ? [...merge.components.slice(0, 3), '…', ...merge.components.slice(-2)] : merge.components;
    lines.push(
      '',
      `${merge.issue.slice(0, merge.issue.indexOf('/') + 13)}: ${merge.events} events of ${merge.bugs.length} bugs; components ${JSON.stringify(head)}`,
    );
    for (const bug of merge.bugs.slice(0, 6)) lines.push(`  ${String(bug.events).padStart(3)} × ${bug.bug}: ${bug.sample}`);
    if (merge.bugs.length > 6) lines.push(`  … and ${merge.bugs.length - 6} more bugs`);
  }
  return lines.join('\n');
}
