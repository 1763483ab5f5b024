// Versions 1 and 2 are frozen (processors/grouping/legacy/): the issues they opened are found again
// during an upgrade only if they hash every event as they did. The digests below were computed by
// the code of commit 6d128d7 (version 2 current, before issue #32) over the corpus's events of
// these categories; a change to a module the frozen versions share (names/files.ts, native.ts,
// go.ts, python.ts, recursion.ts, normalize-v1.ts) that changes a hash fails here.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { labelEvents, readCorpus } from '../../bench/grouping-eval/evaluate.js';
import { computeGrouping } from '../../processors/grouping/fingerprint.js';

const CATEGORIES = new Set([
  'js-cross-browser',
  'js-bundles',
  'js-no-info-frames',
  'node',
  'java-generated',
  'chained',
  'recursion',
  'native',
  'go',
  'python',
  'messages',
  'custom-fingerprint',
  'ruby',
  'php',
  'dotnet',
  'rust',
  'dart',
  'kotlin',
  'swift',
  'elixir',
  'react-native',
  'message-data',
]);

const FROZEN = {
  1: '47ef2c3e10d786c686c4dbe053ebc66d1842e7e46001c362a26defa8db0d9a01',
  2: '137dd8a54bd444276b574c9ce50f1dc2b192f6503eb7a21a4380d1a96a504c1a',
} as const;

describe('frozen grouping versions', () => {
  const events = labelEvents(readCorpus().filter((line) => CATEGORIES.has(line.category)));

  it.each([1, 2] as const)('version %i hashes the corpus as it did before version 3', (version) => {
    expect(events).toHaveLength(2117);
    const digest = createHash('sha256');
    for (const { event } of events) digest.update(computeGrouping(event, { version }).hash);
    expect(digest.digest('hex')).toBe(FROZEN[version]);
  });

  it('version 3 differs from version 2 where its rules apply, and is the default', () => {
    const differ = events.filter(({ event }) => computeGrouping(event, { version: 2 }).hash !== computeGrouping(event).hash).length;
    expect(differ).toBeGreaterThan(0);
    expect(computeGrouping(events[0].event).hash).toBe(computeGrouping(events[0].event, { version: 3 }).hash);
  });
});
