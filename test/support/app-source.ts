// Where the fixtures' frames must end up, read from the SOURCE TEXT only (never from a map): every
// frame site in the fixtures is marked on its line with a trailing comment
//
//   `// @frame <function> [<anchor>]`
//
// `<function>` is the name of the enclosing function as written in the source (`Class.method`, `new Class`
// for methods). `<anchor>` is a piece of the line's code; the frame's column is where the anchor
// starts, or where its `|` stands (`cart.|total()` points at `total`). The anchor is what the
// runtime reports for that frame: the `new` of a `throw new …` (the error is made there), the
// callee's name at a call (the property name of a method call), the `await` of an async frame.
// Java markers have no anchor: JVM frames have lines only.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface SourceSite {
  /** The function as the marker names it. */
  function: string;
  /** Path relative to the scanned root, with `/` (e.g. `src/cart.ts`). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based; undefined when the marker has no anchor. */
  column?: number;
  /** The whole source line, as in the file. */
  lineText: string;
  /** Every line of the file (for context assertions). */
  fileLines: string[];
}

const MARKER = /\/\/ @frame ((?:new )?\S+)(?: (.+?))?\s*$/;

function filesUnder(root: string, extensions: readonly string[]): string[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((path) => extensions.some((extension) => path.endsWith(extension)))
    .map((path) => join(root, path))
    .sort();
}

/** Every marked site under `root` by function name (a name marked twice is an error). */
export function markedSites(root: string, extensions: readonly string[]): Map<string, SourceSite> {
  const sites = new Map<string, SourceSite>();
  for (const path of filesUnder(root, extensions)) {
    const fileLines = readFileSync(path, 'utf8').split('\n');
    fileLines.forEach((lineText, index) => {
      const match = MARKER.exec(lineText);
      if (!match) return;
      const [, fn, anchor] = match;
      const site: SourceSite = { function: fn, file: relative(root, path).split('\\').join('/'), line: index + 1, lineText, fileLines };
      if (anchor !== undefined) {
        const code = lineText.slice(0, match.index);
        const text = anchor.replace('|', '');
        const at = code.indexOf(text);
        if (at < 0) throw new Error(`${site.file}:${site.line}: the anchor ${JSON.stringify(anchor)} is not in the code`);
        if (code.indexOf(text, at + 1) >= 0) throw new Error(`${site.file}:${site.line}: the anchor ${JSON.stringify(anchor)} is ambiguous`);
        site.column = at + Math.max(anchor.indexOf('|'), 0) + 1;
      }
      if (sites.has(fn)) throw new Error(`${site.file}:${site.line}: @frame ${fn} is marked twice`);
      sites.set(fn, site);
    });
  }
  return sites;
}

/** The sites of `chain` (function names, oldest call first), in that order. */
export function sitesOf(sites: Map<string, SourceSite>, chain: readonly string[]): SourceSite[] {
  return chain.map((fn) => {
    const site = sites.get(fn);
    if (!site) throw new Error(`no @frame ${fn} marker in the fixtures`);
    return site;
  });
}
