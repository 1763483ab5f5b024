// The grouping-quality corpus (issue #12): the grouping processor must turn the corpus's labeled
// events into issues with pairwise F1 >= 0.98, precision and recall each >= 0.97
// (`npm run grouping-eval -- --explain` shows by category what splits and what merges).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { categoriesOf, CORPUS_PATH, GOAL, groupEvents, labelEvents, readCorpus, score } from '../../bench/grouping-eval/evaluate.js';
import { CATEGORIES, corpusText } from './corpus/generate.js';

const lines = readCorpus();
const events = labelEvents(lines);

describe('grouping corpus', () => {
  it('is what the generator writes (deterministic; regenerate with `npm run grouping-corpus`)', () => {
    const committed = readFileSync(CORPUS_PATH, 'utf8');
    const generated = corpusText();
    expect(generated === committed, 'test/grouping/corpus/corpus.jsonl differs from the generator: run `npm run grouping-corpus`').toBe(true);
    expect(corpusText()).toBe(generated);
  });

  it('covers every category with several bugs, each of 1 to 20 events', () => {
    expect(categoriesOf(lines)).toEqual(CATEGORIES.map((category) => category.name));
    for (const category of CATEGORIES) {
      const bugs = new Set(lines.filter((line) => line.category === category.name).map((line) => line.bug));
      expect(bugs.size, category.name).toBeGreaterThanOrEqual(5);
    }
    const perBug = new Map<string, number>();
    for (const line of lines) perBug.set(line.bug, (perBug.get(line.bug) ?? 0) + 1);
    for (const [bug, n] of perBug) expect(n, bug).toBeLessThanOrEqual(20);
  });

  it(`groups it with pairwise F1 >= ${GOAL.f1}, precision and recall >= ${GOAL.precision}`, () => {
    const { overall, categories } = score(groupEvents(events, 'current'), 'current');
    const figures = Object.entries(categories)
      .map(([name, s]) => `${name}: P ${s.pairwise.precision.toFixed(3)} R ${s.pairwise.recall.toFixed(3)} F1 ${s.pairwise.f1.toFixed(3)}`)
      .join('\n');
    const summary = `overall: P ${overall.pairwise.precision.toFixed(3)} R ${overall.pairwise.recall.toFixed(3)} F1 ${overall.pairwise.f1.toFixed(3)}\n${figures}`;
    expect.soft(overall.pairwise.precision, summary).toBeGreaterThanOrEqual(GOAL.precision);
    expect.soft(overall.pairwise.recall, summary).toBeGreaterThanOrEqual(GOAL.recall);
    expect(overall.pairwise.f1, summary).toBeGreaterThanOrEqual(GOAL.f1);
  });

  it('meets the goal on each SDK platform (issue #32), not only overall', () => {
    const { platforms } = score(groupEvents(events, 'current'), 'current');
    expect(Object.keys(platforms)).toEqual(expect.arrayContaining(['ruby', 'php', 'csharp', 'native', 'dart', 'java', 'cocoa', 'elixir', 'javascript']));
    for (const [platform, s] of Object.entries(platforms)) {
      const figures = `${platform}: P ${s.pairwise.precision.toFixed(3)} R ${s.pairwise.recall.toFixed(3)} F1 ${s.pairwise.f1.toFixed(3)}`;
      expect.soft(s.pairwise.precision, figures).toBeGreaterThanOrEqual(GOAL.precision);
      expect.soft(s.pairwise.recall, figures).toBeGreaterThanOrEqual(GOAL.recall);
      expect.soft(s.pairwise.f1, figures).toBeGreaterThanOrEqual(GOAL.f1);
    }
  });
});
