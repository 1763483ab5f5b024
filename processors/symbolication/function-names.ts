// Original function names for JavaScript frames.
//
// A frame's `function` is the name of the function *executing* at the frame's position, as the
// runtime knew it: the minified name (`r`, `n.method`, `new a`). The mapping at the frame's
// position cannot give the original: it names whatever identifier sits there (at a call site,
// the callee). What can: the mapping at the place where the executing function was *declared*.
// Minifiers that rename an identifier emit a segment with a `names` entry at each occurrence
// of it, the declaration included (`function r(` ← names[i] = "handleClick").
//
// So, given the minified source: walk the map's segments backwards from the frame's position,
// and at each segment whose minified text is the identifier (`r`) check whether it declares a
// function there (`function r(`, `r=function`, `r=(…)=>`, `r=o=>`, `class r`, a method `r(…){`)
// whose body encloses the frame's position (a brace scan that skips strings, template literals,
// comments and regular expressions). The first such declaration is the enclosing function:
// its segment's name is the original name; a declaration without a name means the identifier
// was not renamed. A qualifier (`n` in `n.method`, V8's receiver class) is looked up the same
// way as an enclosing `class n`. Without the minified source, or when nothing is found within
// the scan limits, the minified name stays.
import type { ParsedSourceMap, SourceText } from './source-map.js';

/** Segments examined per identifier before giving up (~250 KB of minified code). */
const MAX_SEGMENTS = 50_000;
/** Characters a brace scan reads before assuming the body encloses the position. */
const MAX_SCAN = 4 * 1024 * 1024;
/** Characters a parameter list may span. */
const MAX_PARAMS = 64 * 1024;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const PREFIX = /^((?:async\*?\s+|new\s+|get\s+|set\s+)*)/;
const AS_SUFFIX = /\s+\[as [^\]]*\]$/;
const DECLARING_KEYWORD = /(?:^|[^\w$])(?:function\s*\*?|class)\s*$/;
const METHOD_LEAD = /(?:^|[{};,*]|[^\w$](?:static|async|get|set))\s*$/;
const ARROW_AFTER_PARAM = /^\s*=>/;
const FUNCTION_KEYWORD = /^(?:async\s*)?function\b/;
const CLASS_KEYWORD = /^class\b/;
const ASYNC_ARROW = /^async\s*(?=\(|[A-Za-z_$])/;
const SIMPLE_PARAM = /^[A-Za-z_$][\w$]*/;

export interface NameSource {
  map: ParsedSourceMap;
  /** The minified file the map was made for. */
  minified: SourceText;
}

/**
 * The original name of the function executing at a generated position (1-based line and column),
 * given the name the runtime reported, or undefined when it cannot be told (or is unchanged).
 */
export function originalFunctionName(source: NameSource, line: number, column: number, reported: string): string | undefined {
  const suffix = AS_SUFFIX.exec(reported)?.[0] ?? '';
  const core = reported.slice(0, reported.length - suffix.length);
  const prefix = PREFIX.exec(core)?.[1] ?? '';
  const parts = core.slice(prefix.length).split('.');
  const lineStart = source.minified.offsetOf(line);
  if (lineStart < 0) return undefined;
  const position = lineStart + column - 1;
  let changed = false;
  const mapped = parts.map((part, i) => {
    if (!IDENTIFIER.test(part)) return part;
    const original = enclosingDeclarationName(source, line - 1, column - 1, position, part, i === parts.length - 1 ? 'function' : 'class');
    if (original === undefined || original === part) return part;
    changed = true;
    return original;
  });
  return changed ? `${prefix}${mapped.join('.')}${suffix}` : undefined;
}

/**
 * Walks segments backwards from (line0, column0) for the nearest declaration of `identifier`
 * enclosing `position`: its segment's name, or the identifier itself when the declaration's
 * segment has no name (not renamed), or undefined when there is none.
 */
function enclosingDeclarationName(
  source: NameSource,
  line0: number,
  column0: number,
  position: number,
  identifier: string,
  kind: 'function' | 'class',
): string | undefined {
  const { map, minified } = source;
  const text = minified.text;
  // A qualifier is most often a runtime name (`Object`, `HTMLButtonElement`): without a class
  // of that name anywhere, there is nothing to walk back to.
  if (kind === 'class' && !declaresClass(minified, identifier)) return undefined;
  let examined = 0;
  for (let l = Math.min(line0, map.lineCount - 1); l >= 0; l--) {
    const lineStart = minified.offsetOf(l + 1);
    if (lineStart < 0) continue;
    const [first, end] = map.lineSegments(l);
    for (let s = l === line0 ? map.segmentAt(l, column0) : end - 1; s >= first; s--) {
      if (++examined > MAX_SEGMENTS) return undefined;
      const at = lineStart + map.generatedColumn(s);
      if (!isIdentifierAt(text, at, identifier)) continue;
      const body = declaredBody(text, at, identifier, kind);
      if (body === undefined || !encloses(text, body, position)) continue;
      return map.segmentName(s) ?? identifier;
    }
  }
  return undefined;
}

/** Per minified text: whether it declares a class of a name (a search of the whole text, so remembered). */
const classNames = new WeakMap<SourceText, Map<string, boolean>>();

function declaresClass(minified: SourceText, identifier: string): boolean {
  let known = classNames.get(minified);
  if (known === undefined) classNames.set(minified, (known = new Map()));
  let found = known.get(identifier);
  if (found === undefined) {
    const text = minified.text;
    found = text.includes(`class ${identifier}`) || text.includes(`${identifier}=class`) || text.includes(`${identifier} = class`);
    if (known.size >= 10_000) known.clear();
    known.set(identifier, found);
  }
  return found;
}

function isIdentifierChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 36 || code === 95 || code > 127;
}

function isIdentifierAt(text: string, at: number, identifier: string): boolean {
  if (!text.startsWith(identifier, at)) return false;
  if (at > 0 && isIdentifierChar(text.charCodeAt(at - 1))) return false;
  const after = at + identifier.length;
  return after >= text.length || !isIdentifierChar(text.charCodeAt(after));
}

/** Where the body of the function (or class) declared at `at` begins: a `{`, or an arrow's expression. */
interface Body {
  start: number;
  /** An expression-bodied arrow: the body ends with the expression. */
  expression: boolean;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at])) at++;
  return at;
}

function declaredBody(text: string, at: number, identifier: string, kind: 'function' | 'class'): Body | undefined {
  const before = text.slice(Math.max(0, at - 24), at);
  const after = skipSpace(text, at + identifier.length);
  if (DECLARING_KEYWORD.test(before)) {
    const isClass = /class\s*$/.test(before);
    if (kind === 'class' && !isClass) return undefined;
    return isClass ? classBody(text, after) : functionBody(text, after);
  }
  const c = text[after];
  if (c === '=' && text[after + 1] !== '=' && text[after + 1] !== '>') return assignedBody(text, skipSpace(text, after + 1), kind);
  if (c === ':' && kind === 'function') return assignedBody(text, skipSpace(text, after + 1), kind);
  if (c === '(' && kind === 'function' && METHOD_LEAD.test(before)) return functionBody(text, after);
  return undefined;
}

/** After `function name` / a method name: `(params) {`. */
function functionBody(text: string, at: number): Body | undefined {
  if (text[at] !== '(') return undefined;
  const close = matching(text, at, at + MAX_PARAMS);
  if (close < 0) return undefined;
  const open = skipSpace(text, close + 1);
  return text[open] === '{' ? { start: open, expression: false } : undefined;
}

/** After `class name`: `extends X {` or `{`. */
function classBody(text: string, at: number): Body | undefined {
  const open = text.indexOf('{', at);
  return open < 0 || open - at > 4096 ? undefined : { start: open, expression: false };
}

/** The right-hand side of `name=` / `name:`: a function, class or arrow expression. */
function assignedBody(text: string, at: number, kind: 'function' | 'class'): Body | undefined {
  const rest = text.slice(at, at + 16);
  if (CLASS_KEYWORD.test(rest)) return classBody(text, at + 5);
  if (kind === 'class') return undefined;
  const fn = FUNCTION_KEYWORD.exec(rest);
  if (fn) {
    let p = skipSpace(text, at + fn[0].length);
    if (text[p] === '*') p = skipSpace(text, p + 1);
    const name = SIMPLE_PARAM.exec(text.slice(p, p + 256));
    if (name) p = skipSpace(text, p + name[0].length);
    return functionBody(text, p);
  }
  let p = at;
  const asyncArrow = ASYNC_ARROW.exec(rest);
  if (asyncArrow) p = at + asyncArrow[0].length;
  if (text[p] === '(') {
    const close = matching(text, p, p + MAX_PARAMS);
    if (close < 0) return undefined;
    p = close + 1;
  } else {
    const param = SIMPLE_PARAM.exec(text.slice(p, p + 256));
    if (!param) return undefined;
    p += param[0].length;
  }
  const arrow = ARROW_AFTER_PARAM.exec(text.slice(p, p + 64));
  if (!arrow) return undefined;
  const start = skipSpace(text, p + arrow[0].length);
  return text[start] === '{' ? { start, expression: false } : { start, expression: true };
}

function encloses(text: string, body: Body, position: number): boolean {
  if (position <= body.start) return body.expression && position === body.start;
  const stop = Math.min(position, body.start + MAX_SCAN);
  const end = body.expression ? expressionEnd(text, body.start, stop) : matching(text, body.start, stop);
  // -1: the scan stopped early (limit, or the position reached first): nothing closed before it.
  return end < 0 || end >= position;
}

// ---------------------------------------------------------------------------------------------
// A bracket scanner that knows enough JavaScript to skip strings, template literals, comments and
// regular expressions (the places where a brace is not a brace).
// ---------------------------------------------------------------------------------------------

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

/**
 * The index of the bracket closing the one at `open`, or -1 if it does not close before `stop`
 * (default: the scan limit).
 */
function matching(text: string, open: number, stop: number): number {
  return scan(text, open + 1, [OPENERS[text[open]]], stop, false);
}

/** Where an arrow's expression body starting at `start` ends, or -1 if not before `stop`. */
function expressionEnd(text: string, start: number, stop: number): number {
  return scan(text, start, [], stop, true);
}

function scan(text: string, from: number, stack: string[], stop: number, expression: boolean): number {
  const limit = Math.min(text.length, stop);
  let i = from;
  let last = ''; // the last significant character, for telling a regex from a division
  let lastWordEnd = -1;
  while (i < limit) {
    const c = text[i];
    if (c === '"' || c === "'") {
      i = skipString(text, i, c);
      last = c;
      continue;
    }
    if (c === '`') {
      const end = skipTemplate(text, i + 1, stack);
      if (end < 0) return -1;
      i = end;
      last = '`';
      continue;
    }
    if (c === '/') {
      const next = text[i + 1];
      if (next === '/') {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? limit : nl;
        continue;
      }
      if (next === '*') {
        const close = text.indexOf('*/', i + 2);
        i = close < 0 ? limit : close + 2;
        continue;
      }
      if (regexAllowed(text, last, lastWordEnd, i)) {
        i = skipRegex(text, i);
        last = '/';
        continue;
      }
    }
    if (c in OPENERS) {
      stack.push(OPENERS[c]);
    } else if (c === ')' || c === ']' || c === '}') {
      if (stack.length === 0) return expression ? i : -1;
      if (stack.pop() === '${' && c === '}') {
        // The end of a template substitution: the template's text continues.
        const end = skipTemplate(text, i + 1, stack);
        if (end < 0) return -1;
        i = end;
        last = '`';
        continue;
      }
      if (stack.length === 0 && !expression) return i;
    } else if (expression && stack.length === 0 && (c === ',' || c === ';')) {
      return i;
    }
    if (c !== ' ' && c !== '\n' && c !== '\t' && c !== '\r') {
      if (isIdentifierChar(c.charCodeAt(0))) lastWordEnd = i + 1;
      last = c;
    }
    i++;
  }
  return -1;
}

function skipString(text: string, at: number, quote: string): number {
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === quote || c === '\n') return i + 1;
    else i++;
  }
  return i;
}

/** From inside a template literal: past its closing backtick, or at a `${` (pushed on the stack) plus 2. */
function skipTemplate(text: string, at: number, stack: string[]): number {
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i + 1;
    else if (c === '$' && text[i + 1] === '{') {
      stack.push('${');
      return i + 2;
    } else i++;
  }
  return -1;
}

function regexAllowed(text: string, last: string, lastWordEnd: number, at: number): boolean {
  if (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last)) return true;
  if (lastWordEnd > 0 && isIdentifierChar(last.charCodeAt(0))) {
    let start = lastWordEnd;
    while (start > 0 && isIdentifierChar(text.charCodeAt(start - 1))) start--;
    return REGEX_AFTER_WORD.has(text.slice(start, lastWordEnd)) && text.slice(lastWordEnd, at).trim() === '';
  }
  return false;
}

function skipRegex(text: string, at: number): number {
  let i = at + 1;
  let inClass = false;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '\n') return i;
    else if (inClass) {
      if (c === ']') inClass = false;
      i++;
    } else if (c === '[') {
      inClass = true;
      i++;
    } else if (c === '/') return i + 1;
    else i++;
  }
  return i;
}
