// Shell examples in Markdown: found, prepared for a live service, and checked against what the
// text says they print. The conventions a doc follows (also in docs/architecture.md):
// - every ```sh / ```bash block runs, in file order, against one live service; upper-case
//   variables a block sets carry over to the next blocks of the same file;
// - `<!-- docs-test: skip — why -->` on the line before a block (blank lines between allowed)
//   leaves it out, with the reason; a test lists every skip;
// - `fl_live_...` / `fl_test_...` (or with `…`) stand for the keys printed at first start;
//   127.0.0.1:8080 / localhost:8080 and :4318 for the service's API and OTLP ports;
// - comment lines right after a command are what it prints: each `"key":` of a JSON line must be
//   in the block's output, and so must every plain word (no digits) of another line.

export interface ShellExample {
  file: string;
  line: number;
  code: string;
  skip?: string;
  expectations: string[];
}

const FENCE = /^```(sh|bash|shell)\s*$/;
const SKIP = /^<!--\s*docs-test:\s*skip\s*[—-]\s*(.+?)\s*-->\s*$/;

export function shellExamples(file: string, markdown: string): ShellExample[] {
  const lines = markdown.split('\n');
  const examples: ShellExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i]!)) {
      if (lines[i]!.startsWith('```')) i = closingFence(lines, i);
      continue;
    }
    const end = closingFence(lines, i);
    const body = lines.slice(i + 1, end);
    examples.push({ file, line: i + 1, code: body.join('\n'), skip: skipReason(lines, i), expectations: expectedOutput(body) });
    i = end;
  }
  return examples;
}

function closingFence(lines: string[], open: number): number {
  for (let j = open + 1; j < lines.length; j++) if (lines[j]!.startsWith('```')) return j;
  return lines.length;
}

function skipReason(lines: string[], fence: number): string | undefined {
  for (let j = fence - 1; j >= 0; j--) {
    const line = lines[j]!.trim();
    if (line === '') continue;
    return SKIP.exec(line)?.[1];
  }
  return undefined;
}

/** Comment lines that follow a command line (or its continuation lines) directly. */
function expectedOutput(body: string[]): string[] {
  const expected: string[] = [];
  let afterCommand = false;
  for (const raw of body) {
    const line = raw.trim();
    if (line === '') {
      afterCommand = false;
    } else if (line.startsWith('#')) {
      if (afterCommand) expected.push(line.replace(/^#\s?/, ''));
    } else {
      afterCommand = true;
    }
  }
  return expected;
}

/**
 * What the output must contain for each expected line: the keys of a JSON line with their string,
 * boolean or null values, and the words of a plain line (values with digits in them are examples,
 * not promises).
 */
export function requiredFragments(expectations: string[]): string[] {
  const fragments: string[] = [];
  for (const line of expectations) {
    if (/^(\d{3} )?[[{]/.test(line)) {
      for (const match of line.matchAll(/"([A-Za-z_][\w.]*)"\s*:\s*("[^"\d…]*"|true|false|null)?/g)) fragments.push(`"${match[1]}":${match[2] ?? ''}`);
    } else {
      for (const raw of line.split(/[\s…]+/)) {
        const word = raw.replace(/^[^\w]+|[^\w]+$/g, '');
        if (/^[A-Za-z][A-Za-z_-]{3,}$/.test(word)) fragments.push(word);
      }
    }
  }
  return [...new Set(fragments)];
}

export interface Substitutions {
  apiHost: string;
  otlpHost: string;
  liveKey: string;
  testKey: string;
}

export function prepare(code: string, s: Substitutions): string {
  return code
    .replaceAll('127.0.0.1:8080', s.apiHost)
    .replaceAll('localhost:8080', s.apiHost)
    .replaceAll('127.0.0.1:4318', s.otlpHost)
    .replace(/fl_live_(?:\.\.\.|…)/g, s.liveKey)
    .replace(/fl_test_(?:\.\.\.|…)/g, s.testKey);
}
