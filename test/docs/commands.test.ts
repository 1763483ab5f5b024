// Every command in README.md, docs/ and the component READMEs is written `npx faultline …`, the form
// that works in a fresh clone (`faultline` is not on the PATH after `npm install`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const COMMANDS = 'start|validate|components|keys|projects|quarantine|alerts|users|sourcemaps|monitors';

function documents(): Array<{ file: string; text: string }> {
  const docs = readdirSync(join(packageRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  const readmes = ['receivers', 'processors', 'exporters', 'connectors'].flatMap((kind) =>
    readdirSync(join(packageRoot, kind), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(kind, entry.name, 'README.md')),
  );
  return ['README.md', ...docs, ...readmes].flatMap((file) => {
    try {
      return [{ file, text: readFileSync(join(packageRoot, file), 'utf8') }];
    } catch {
      return [];
    }
  });
}

describe('documented commands', () => {
  it('are run as `npx faultline …`', () => {
    const bare = new RegExp(`(?<![\\w/.-])(?<!npx )faultline (?:${COMMANDS})\\b`);
    const found = documents().flatMap(({ file, text }) =>
      text
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => bare.test(line))
        .map(({ line, index }) => `${file}:${index + 1}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
