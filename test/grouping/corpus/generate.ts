// Builds the grouping-quality corpus (test/grouping/corpus/corpus.jsonl): realistic error events
// of known bugs, one JSON line each, `{"category", "bug", "event"}`. Deterministic: every run, on
// every machine, writes the same bytes (test/grouping/corpus.test.ts checks the committed file).
//
//   npm run grouping-corpus        # builds, then: node dist/test/grouping/corpus/generate.js
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { packageRoot } from '../../../src/paths.js';
import { chained } from './categories/chained.js';
import { customFingerprint } from './categories/custom-fingerprint.js';
import { dart } from './categories/dart.js';
import { dotnet } from './categories/dotnet.js';
import { elixir } from './categories/elixir.js';
import { go } from './categories/go.js';
import { javaGenerated } from './categories/java-generated.js';
import { jsBundles } from './categories/js-bundles.js';
import { jsCrossBrowser } from './categories/js-cross-browser.js';
import { jsNoInfoFrames } from './categories/js-no-info-frames.js';
import { kotlin } from './categories/kotlin.js';
import { messageData } from './categories/message-data.js';
import { messages } from './categories/messages.js';
import { native } from './categories/native.js';
import { node } from './categories/node.js';
import { python } from './categories/python.js';
import { php } from './categories/php.js';
import { reactNative } from './categories/react-native.js';
import { recursion } from './categories/recursion.js';
import { ruby } from './categories/ruby.js';
import { rust } from './categories/rust.js';
import { swift } from './categories/swift.js';
import { setSalt } from './random.js';
import type { Category, CorpusEntry } from './types.js';

export const CATEGORIES: readonly Category[] = [
  jsCrossBrowser,
  jsBundles,
  jsNoInfoFrames,
  node,
  javaGenerated,
  chained,
  recursion,
  native,
  go,
  python,
  messages,
  customFingerprint,
  ruby,
  php,
  dotnet,
  rust,
  dart,
  kotlin,
  swift,
  elixir,
  reactNative,
  messageData,
];

export const CORPUS_PATH = join(packageRoot, 'test/grouping/corpus/corpus.jsonl');

export function generateCorpus(): CorpusEntry[] {
  const entries = CATEGORIES.flatMap((category) => category.build());
  const bugCategory = new Map<string, string>();
  for (const entry of entries) {
    const seen = bugCategory.get(entry.bug);
    if (seen !== undefined && seen !== entry.category) throw new Error(`bug ${entry.bug} is in two categories`);
    bugCategory.set(entry.bug, entry.category);
  }
  return entries;
}

/** The file's exact text: one entry per line, `\n`-terminated. */
export function corpusText(entries: readonly CorpusEntry[] = generateCorpus()): string {
  return entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n';
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `--salt S --out F`: a fresh sample of the same bugs, to check that grouping was not fitted to the committed one.
  const { values } = parseArgs({ options: { salt: { type: 'string', default: '' }, out: { type: 'string', default: CORPUS_PATH } } });
  setSalt(values.salt);
  const entries = generateCorpus();
  const text = corpusText(entries);
  writeFileSync(values.out, text);
  const bugs = new Set(entries.map((entry) => entry.bug)).size;
  process.stdout.write(`wrote ${entries.length} events of ${bugs} bugs (${(text.length / 1024).toFixed(0)} KiB) to ${values.out}\n`);
}
