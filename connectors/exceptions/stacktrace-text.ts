// Stack trace TEXT -> StackFrame[]: what OpenTelemetry's `exception.stacktrace` attribute holds
// (V8's `error.stack`, Python's `traceback.format_exception`, Java's `printStackTrace`). Frames
// come out oldest call first, the crashing frame last (Sentry's order), whatever order the
// runtime printed them in. Parsing is line by line with string scans and a few anchored,
// linear regexes: no pattern can backtrack catastrophically on a long line.
import type { StackFrame } from '../../src/records/event.js';

/** At most this many frames are returned: the ones nearest the crash. */
export const MAX_FRAMES = 250;

type Format = 'v8' | 'gecko' | 'python' | 'java';

const HINTS: Record<string, Format> = {
  node: 'v8',
  nodejs: 'v8',
  javascript: 'v8',
  js: 'v8',
  webjs: 'v8',
  typescript: 'v8',
  deno: 'v8',
  bun: 'v8',
  python: 'python',
  java: 'java',
  kotlin: 'java',
  scala: 'java',
  groovy: 'java',
  clojure: 'java',
  jvm: 'java',
};

const PARSERS: Record<Format, (lines: string[]) => StackFrame[]> = {
  v8: parseV8,
  gecko: parseGecko,
  python: parsePython,
  java: parseJava,
};

const LINE_BREAK = /\r\n|\r|\n/;
/** Only this much of a stack text is read: the parsers' work per span has a bound. */
export const MAX_TEXT_LENGTH = 16_384;

/**
 * The frames of a stack trace printed as text, oldest call first and the crashing frame last,
 * at most MAX_FRAMES (the ones nearest the crash). `hint` is a language or platform name
 * (`telemetry.sdk.language` values such as `nodejs`, `python`, `java`): its format is tried
 * first, then the others. Text in no known format gives [].
 */
export function parseStacktrace(text: string, hint?: string): StackFrame[] {
  if (typeof text !== 'string' || text === '') return [];
  const lines = text.slice(0, MAX_TEXT_LENGTH).split(LINE_BREAK);
  const preferred = hint === undefined ? undefined : HINTS[hint.trim().toLowerCase()];
  const order: Format[] = preferred ? [preferred] : [];
  for (const format of ['v8', 'gecko', 'python', 'java'] as const) if (format !== preferred) order.push(format);
  for (const format of order) {
    const frames = PARSERS[format](lines);
    if (frames.length > 0) return frames;
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

const MAX_DIGITS = 15; // below Number.MAX_SAFE_INTEGER

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Index of the first digit of a `:<digits>` run ending at `end`, or -1. */
function digitsBefore(text: string, end: number): number {
  let start = end;
  while (start > 0 && isDigitCode(text.charCodeAt(start - 1))) start--;
  if (start === end || end - start > MAX_DIGITS || start === 0 || text[start - 1] !== ':') return -1;
  return start;
}

/** Splits `path:line:col` / `path:line` / `path`. Only trailing `:<digits>` parts are read. */
function splitPosition(location: string): { file: string; line?: number; col?: number } {
  const last = digitsBefore(location, location.length);
  if (last < 0) return { file: location };
  const previous = digitsBefore(location, last - 1);
  if (previous < 0) return { file: location.slice(0, last - 1), line: Number(location.slice(last)) };
  return {
    file: location.slice(0, previous - 1),
    line: Number(location.slice(previous, last - 1)),
    col: Number(location.slice(last)),
  };
}

const DRIVE_PATH = /^[A-Za-z]:[\\/]/;
const URL_SCHEME = /^https?:\/\//i;

function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\\\') || DRIVE_PATH.test(path);
}

/** `file:///abs/x.js` -> `/abs/x.js`, `file:///C:/x.js` -> `C:/x.js`, percent-escapes decoded. */
function stripFileUrl(path: string): string {
  if (!path.startsWith('file://')) return path;
  let out = path.slice('file://'.length);
  if (out.length > 2 && out[0] === '/' && DRIVE_PATH.test(out.slice(1))) out = out.slice(1);
  if (out.includes('%')) {
    try {
      out = decodeURIComponent(out);
    } catch {
      // Not valid percent-encoding: keep it as printed.
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// V8 (Node.js, Chromium, Deno, Bun): `Error: message` then `    at …` lines, crash first
// ---------------------------------------------------------------------------------------------

const NODE_MODULES = /(?:^|[\\/])node_modules[\\/]/;
/** Locations V8 prints for frames without a file: builtins, `Promise.all (index 0)`. */
const NO_FILE = new Set(['<anonymous>', 'native', 'unknown location']);

/** Index of the `(` matching the `)` at `close`, scanning backwards, or -1. */
function matchingOpen(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 41 /* ) */) depth++;
    else if (c === 40 /* ( */ && --depth === 0) return i;
  }
  return -1;
}

/** `eval at fn (file:1:2), <anonymous>:3:4` -> `file:1:2` (the innermost, the eval's call site). */
function evalOrigin(location: string): string | undefined {
  const close = location.indexOf(')');
  if (close < 0) return undefined;
  const open = location.lastIndexOf('(', close);
  return open < 0 ? undefined : location.slice(open + 1, close);
}

function v8InApp(filename: string | undefined): boolean {
  if (filename === undefined || NO_FILE.has(filename)) return false;
  if (filename.startsWith('node:') || filename.startsWith('internal/')) return false;
  return !NODE_MODULES.test(filename);
}

function parseV8Line(line: string): StackFrame | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('at ')) return undefined;
  let rest = trimmed.slice(3).trimStart();
  if (rest.startsWith('async ')) rest = rest.slice(6).trimStart();
  if (rest === '') return undefined;

  let fn: string | undefined;
  let location = rest;
  if (rest.endsWith(')')) {
    const open = matchingOpen(rest, rest.length - 1);
    // `fn (location)`; a `(` glued to a name (`a.b(X.java:1)`) is not V8's.
    if (open > 0 && rest[open - 1] === ' ') {
      fn = rest.slice(0, open).trim() || undefined;
      location = rest.slice(open + 1, -1).trim();
    } else if (open === 0) {
      location = rest.slice(1, -1).trim();
    }
  }
  const parenthesized = location !== rest;

  const frame: StackFrame = {};
  if (fn !== undefined) frame.function = fn;
  let filename: string | undefined;
  if (location.startsWith('eval at ')) {
    const origin = evalOrigin(location);
    if (origin !== undefined) {
      const position = splitPosition(origin.trim());
      filename = stripFileUrl(position.file) || undefined;
      if (position.line !== undefined) frame.lineno = position.line;
      if (position.col !== undefined) frame.colno = position.col;
    }
  } else if (NO_FILE.has(location)) {
    if (location !== 'unknown location') filename = location;
  } else if (location.startsWith('index ')) {
    // `at async Promise.all (index 0)`: no file.
    if (!parenthesized) return undefined;
  } else {
    const position = splitPosition(location);
    // V8 prints a line number for every file: `at the office (building 5)` is prose.
    if (position.line === undefined || position.file === '') return undefined;
    filename = stripFileUrl(position.file) || undefined;
    frame.lineno = position.line;
    if (position.col !== undefined) frame.colno = position.col;
  }
  if (filename === undefined && fn === undefined) return undefined;
  if (filename !== undefined) {
    frame.filename = filename;
    if (isAbsolutePath(filename) || URL_SCHEME.test(filename)) frame.abs_path = filename;
  }
  frame.in_app = v8InApp(filename);
  frame.platform = 'node';
  return frame;
}

const V8_CAUSE = /^\s*\[cause\]:/; // util.inspect's `[cause]: Error: …` section

function parseV8(lines: string[]): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of lines) {
    if (frames.length > 0 && V8_CAUSE.test(line)) break;
    const frame = parseV8Line(line);
    if (frame === undefined) continue;
    frames.push(frame);
    if (frames.length === MAX_FRAMES) break;
  }
  return frames.reverse();
}

// ---------------------------------------------------------------------------------------------
// SpiderMonkey (Firefox) and JavaScriptCore (Safari): `fn@url:line:col`, `@url:line:col` for an
// anonymous function; crash first, no message line.
// ---------------------------------------------------------------------------------------------

// The function is what precedes the first `@` (a lazy `.*?` there retried every `@` of a line: quadratic).
const GECKO_FRAME = /^([^@]*)@(.+):(\d+):(\d+)$/;

function parseGecko(lines: string[]): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of lines) {
    const match = GECKO_FRAME.exec(line.trim());
    if (!match) continue;
    const [, fn, url, lineno, colno] = match;
    if (lineno.length > MAX_DIGITS || colno.length > MAX_DIGITS) continue;
    const frame: StackFrame = {};
    if (fn !== '') frame.function = fn;
    const filename = stripFileUrl(url);
    frame.filename = filename;
    frame.abs_path = filename;
    frame.lineno = Number(lineno);
    frame.colno = Number(colno);
    frame.in_app = !NODE_MODULES.test(filename);
    frames.push(frame);
    if (frames.length === MAX_FRAMES) break;
  }
  return frames.reverse();
}

// ---------------------------------------------------------------------------------------------
// Python: `Traceback (most recent call last):`, `  File "x.py", line 3, in fn`, code line; oldest
// first. Chained exceptions print the cause first: the last traceback is the one raised.
// ---------------------------------------------------------------------------------------------

const PY_TRACEBACK = 'Traceback (most recent call last):';
const PY_LIBRARY = /[\\/](?:site|dist)-packages[\\/]/i;
const PY_STDLIB = /[\\/]lib[\\/]python\d+(?:\.\d+)?t?[\\/]|[\\/]python\d+[\\/]lib[\\/]/i;
const PY_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Python 3.11+ underlines the failing expression on its own line. */
const PY_MARKERS = /^[\s~^]+$/;

function pythonInApp(filename: string): boolean {
  if (filename.startsWith('<frozen ')) return false;
  return !PY_LIBRARY.test(filename) && !PY_STDLIB.test(filename);
}

/** The dotted module of a `.py` file, when its import root can be told from the path. */
function pythonModule(filename: string): string | undefined {
  if (!filename.endsWith('.py')) return undefined;
  let relative: string | undefined;
  const library = PY_LIBRARY.exec(filename) ?? PY_STDLIB.exec(filename);
  if (library) relative = filename.slice(library.index + library[0].length);
  else if (!isAbsolutePath(filename) && !filename.startsWith('<')) relative = filename.replace(/^(?:\.[\\/])+/, '');
  if (relative === undefined) return undefined;
  const parts = relative.slice(0, -3).split(/[\\/]/);
  if (parts.length > 1 && parts[parts.length - 1] === '__init__') parts.pop();
  return parts.every((part) => PY_IDENTIFIER.test(part)) ? parts.join('.') : undefined;
}

/** `File "x.py", line 3, in fn` (already trimmed), or undefined. */
function parsePythonFileLine(trimmed: string): StackFrame | undefined {
  if (!trimmed.startsWith('File "')) return undefined;
  const quote = trimmed.indexOf('"', 6);
  if (quote < 0) return undefined;
  const filename = trimmed.slice(6, quote);
  const after = trimmed.slice(quote + 1);
  if (!after.startsWith(', line ')) return undefined;
  let end = 7;
  while (end < after.length && isDigitCode(after.charCodeAt(end))) end++;
  if (end === 7 || end - 7 > MAX_DIGITS) return undefined;
  const frame: StackFrame = { filename };
  if (isAbsolutePath(filename)) frame.abs_path = filename;
  const module = pythonModule(filename);
  if (module !== undefined) frame.module = module;
  const tail = after.slice(end);
  if (tail.startsWith(', in ')) {
    const fn = tail.slice(5).trim();
    if (fn !== '') frame.function = fn;
  } else if (tail.trim() !== '') {
    return undefined;
  }
  frame.lineno = Number(after.slice(7, end));
  frame.in_app = pythonInApp(filename);
  frame.platform = 'python';
  return frame;
}

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

function parsePython(lines: string[]): StackFrame[] {
  let frames: StackFrame[] = [];
  let last: StackFrame | undefined; // the frame whose code line may follow
  let lastIndent = 0;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === PY_TRACEBACK) {
      frames = [];
      last = undefined;
      continue;
    }
    const frame = parsePythonFileLine(trimmed);
    if (frame !== undefined) {
      frames.push(frame);
      last = frame;
      lastIndent = indentOf(line);
      continue;
    }
    // The code line is indented under its `File` line; Python omits it when the source is gone.
    if (last !== undefined && trimmed !== '' && indentOf(line) > lastIndent && !PY_MARKERS.test(line) && !trimmed.startsWith('[Previous line repeated')) {
      last.context_line = trimmed;
    }
    last = undefined;
  }
  return frames.length > MAX_FRAMES ? frames.slice(-MAX_FRAMES) : frames;
}

// ---------------------------------------------------------------------------------------------
// Java (and JVM languages): `\tat pkg.Class.method(File.java:42)`, crash first; only the top
// exception's frames (before the first `Caused by:` / `Suppressed:`).
// ---------------------------------------------------------------------------------------------

const JAVA_QUALIFIED = /^[^\s()]+$/;
const JAVA_LOADER_PREFIX = /^[\w.@-]*\/\/?/;
const JAVA_PLATFORM_PACKAGES = ['java.', 'javax.', 'sun.', 'jdk.', 'com.sun.'];

function parseJavaLine(trimmed: string): StackFrame | undefined {
  if (!trimmed.startsWith('at ')) return undefined;
  let rest = trimmed.slice(3).trimStart();
  // Logback's packaging data: `… (App.java:42) ~[app.jar:1.0]`.
  if (rest.endsWith(']')) {
    const open = rest.lastIndexOf('[');
    if (open > 0) {
      let end = open;
      if (rest[end - 1] === '~') end--;
      if (end > 0 && rest[end - 1] === ' ') rest = rest.slice(0, end).trimEnd();
    }
  }
  if (!rest.endsWith(')')) return undefined;
  const open = rest.lastIndexOf('(');
  if (open <= 0) return undefined;
  let qualified = rest.slice(0, open);
  if (!JAVA_QUALIFIED.test(qualified)) return undefined;
  // Class loader and module prefixes: `app//com.x.Y.m`, `java.base@17/java.lang.Thread.run`; a
  // lambda class keeps its own slash (`Foo$$Lambda$1581/0x00000008019b981c.apply`).
  qualified = qualified.replace(JAVA_LOADER_PREFIX, '');
  const dot = qualified.lastIndexOf('.');
  if (dot <= 0 || dot === qualified.length - 1) return undefined;
  const module = qualified.slice(0, dot);
  const frame: StackFrame = { module, function: qualified.slice(dot + 1) };
  const location = rest.slice(open + 1, -1).trim();
  if (location !== '' && location !== 'Native Method' && location !== 'Unknown Source') {
    const position = splitPosition(location);
    if (position.file !== '') frame.filename = position.file;
    if (position.line !== undefined) frame.lineno = position.line;
  }
  frame.in_app = !JAVA_PLATFORM_PACKAGES.some((prefix) => module.startsWith(prefix));
  frame.platform = 'java';
  return frame;
}

export interface ParsedCause {
  type: string;
  value: string;
  /** Oldest call first; `... 12 more` (the frames shared with the enclosing trace) left out. */
  stacktrace: StackFrame[];
}

/**
 * Java's `Caused by:` sections (at the start of a line: those of a `Suppressed:` block are
 * indented and belong to it), outermost first, each with its type, message and frames.
 */
export function parseJavaCauses(text: string): ParsedCause[] {
  const causes: ParsedCause[] = [];
  let current: ParsedCause | undefined;
  for (const line of text.slice(0, MAX_TEXT_LENGTH).split(LINE_BREAK)) {
    if (line.startsWith('Caused by:')) {
      const header = line.slice('Caused by:'.length).trim();
      const colon = header.indexOf(': ');
      current = { type: colon < 0 ? header : header.slice(0, colon), value: colon < 0 ? '' : header.slice(colon + 2), stacktrace: [] };
      causes.push(current);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed.startsWith('Suppressed:')) current = undefined;
    // A suppressed exception's frames are indented deeper than the trace's (two tabs, or more spaces).
    if (current === undefined || /^(?:\t\t| {5,})/.test(line)) continue;
    const frame = parseJavaLine(trimmed);
    if (frame !== undefined && current.stacktrace.length < MAX_FRAMES) current.stacktrace.push(frame);
  }
  for (const cause of causes) cause.stacktrace.reverse();
  return causes.filter((cause) => cause.type !== '');
}

function parseJava(lines: string[]): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith('Caused by:') || trimmed.startsWith('Suppressed:')) break;
    const frame = parseJavaLine(trimmed);
    if (frame === undefined) continue; // the header, `... 12 more`, prose
    frames.push(frame);
    if (frames.length === MAX_FRAMES) break;
  }
  return frames.reverse();
}
