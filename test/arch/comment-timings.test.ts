// No comment in the code quotes a measured timing ("takes 17 s", "9 µs per event", "p99 32 ms"):
// such numbers go stale with the next change and the next machine, and bench/ and bench/README.md
// are where they are measured and kept. A number with a unit of time inside a comment is refused
// unless it is quoted (`90s`, "1.2 s before": a format or an example of input), so a default or a
// limit is named by its setting or constant instead.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const FOLDERS = ['src', 'receivers', 'processors', 'exporters', 'connectors', 'extensions', 'frontends', 'service'];

/** Quoted spans of a comment: `code` and "text". Neither quantifier can overlap the next one, so this is linear. */
const QUOTED = /`[^`\n]*`|"[^"\n]*"/g;
/** A number with a unit of time: 17 s, 9µs, 2.5 ms, ~30 us. One pass, no nested quantifiers. */
const TIMING = /(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ns|µs|μs|us|ms|s|secs?|seconds?)(?![\w/])/;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every comment of a TypeScript source, with its line: the comment ranges before and after each node of its syntax tree. */
export function comments(text: string, jsx: boolean): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(jsx ? 'x.tsx' : 'x.ts', text, ts.ScriptTarget.Latest, false, jsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = new Map<number, { line: number; text: string }>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (!found.has(range.pos))
        found.set(range.pos, { line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) });
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...found.values()].sort((a, b) => a.line - b.line);
}

/** The comments of a source that quote a timing, as `line: text`. */
export function quotedTimings(text: string, jsx = false): string[] {
  return comments(text, jsx).flatMap((comment) =>
    comment.text.split('\n').flatMap((line, offset) => {
      const match = TIMING.exec(line.replace(QUOTED, ''));
      return match ? [`${comment.line + offset}: ${match[0].trim()} in ${line.trim()}`] : [];
    }),
  );
}

describe('comments', () => {
  it('quote no measured timing', () => {
    const found = FOLDERS.flatMap((folder) => sourceFiles(join(packageRoot, folder))).flatMap((file) =>
      quotedTimings(readFileSync(file, 'utf8'), file.endsWith('.tsx')).map((hit) => `${relative(packageRoot, file)}:${hit}`),
    );
    expect(found).toEqual([]);
  });

  it('the check finds one, in either kind of comment, and leaves code, strings and quoted examples alone', () => {
    const source = [
      '// The flush takes 17 s on a laptop.',
      '/**',
      ' * Validation: ~9 µs per event,',
      ' * and p99 32ms end to end.',
      ' */',
      'const timeout = \'30 s\'; // a `90s` window, "1.2 s before"',
      'const costMs = 5; /* 2.5ms */',
    ].join('\n');
    expect(quotedTimings(source)).toEqual([
      '1: 17 s in // The flush takes 17 s on a laptop.',
      '3: 9 µs in * Validation: ~9 µs per event,',
      '4: 32ms in * and p99 32ms end to end.',
      '7: 2.5ms in /* 2.5ms */',
    ]);
  });
});
