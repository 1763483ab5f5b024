// Fingerprint rules: `matcher:value [matcher:value …] -> part[, part…] [title="…"]`. The first rule
// whose matchers all hold gives the event its fingerprint (and optionally its title).
import { LEVELS } from '../../../src/records/event.js';
import { FRAME_MATCHER_KEYS, FrameMatchers, type FrameTest, FrameView, type RuleFrame } from './frames.js';
import { compileTextGlob } from './glob.js';
import { Cursor, type MatcherToken } from './syntax.js';

/** What fingerprint rules are matched against: the event, its exception chain and its frames. */
export interface FingerprintSubject {
  /** The chain, outermost first. */
  exceptions: Array<{ type: string; value: string }>;
  message?: string;
  level?: string;
  release?: string;
  tags?: Record<string, string>;
  /** All frames of all exceptions. `{{ function }}` and `{{ module }}` name the last in-app frame, else the last frame. */
  frames: readonly RuleFrame[];
}

export interface FingerprintMatch {
  fingerprint: string[];
  title?: string;
  /** The text of the rule that matched. */
  rule: string;
}

type Variable = { name: 'type' | 'function' | 'module' | 'level' } | { tag: string };
/** A fingerprint part or title: literal text and variables. */
type Template = ReadonlyArray<string | Variable>;

type ExceptionTest = (exception: { type: string; value: string }) => boolean;
type SubjectTest = (subject: FingerprintSubject) => boolean;

export interface FingerprintRule {
  /** The rule as written. */
  readonly text: string;
  /** The parts as written, `{{default}}` spelled `{{ default }}`; other variables are expanded at match time. */
  readonly fingerprint: string[];
  /** The title as written (variables unexpanded). */
  readonly title?: string;
  /** message, level, release and tags tests. */
  readonly subjectTests: readonly SubjectTest[];
  /** type and value tests: one exception of the chain must pass them all. */
  readonly exceptionTests: readonly ExceptionTest[];
  /** Frame matchers: one frame must be in `families` and pass every test. `frameMatchers` says whether there are any. */
  readonly frameMatchers: boolean;
  readonly families: number;
  readonly frameTests: readonly FrameTest[];
  readonly parts: readonly Template[];
  readonly titleTemplate?: Template;
}

export const DEFAULT_PART = '{{ default }}';

const EXCEPTION_KEYS: Record<string, 'type' | 'value'> = { type: 'type', value: 'value', 'error.type': 'type', 'error.value': 'value' };
const KNOWN_KEYS = ['type', 'value', 'message', 'level', 'release', 'tags.<name>', ...FRAME_MATCHER_KEYS, 'error.type', 'error.value'].join(', ');
const VARIABLES: Record<string, Variable | 'default'> = {
  default: 'default',
  type: { name: 'type' },
  'error.type': { name: 'type' },
  function: { name: 'function' },
  'stack.function': { name: 'function' },
  module: { name: 'module' },
  'stack.module': { name: 'module' },
  level: { name: 'level' },
};
const KNOWN_VARIABLES = '{{ default }}, {{ type }}, {{ function }}, {{ module }}, {{ level }}, {{ tags.<name> }}';
const ATTRIBUTE = /([A-Za-z_][\w-]*)="/y;
const GLOB_SYNTAX = /[*?[]/;

/** Parses one fingerprint rule. Throws RuleSyntaxError (with the column) when it is not one. */
export function parseFingerprintRule(text: string): FingerprintRule {
  const cursor = new Cursor(text);
  const subjectTests: SubjectTest[] = [];
  const exceptionTests: ExceptionTest[] = [];
  const frames = new FrameMatchers();
  let matchers = 0;
  let arrowHint = '';
  for (;;) {
    if (!cursor.skipSpace()) throw cursor.error(`expected -> and a fingerprint after the matchers${arrowHint}`);
    if (cursor.startsWith('->')) {
      if (matchers === 0) throw cursor.error('a fingerprint rule needs at least one matcher before ->');
      cursor.pos += 2;
      break;
    }
    if (cursor.startsWith('[') || cursor.startsWith('|'))
      throw cursor.error('caller and callee matchers ([ … ] | and | [ … ]) are not supported: match the frame itself');
    if (!cursor.atMatcher()) {
      const start = cursor.pos;
      throw cursor.error(`expected a matcher (key:value) or ->, not "${cursor.word()}"`, start);
    }
    const token = cursor.matcher('->');
    matchers++;
    if (token.value.includes('->')) arrowHint = ' (put spaces around ->)';
    const exceptionKey = Object.hasOwn(EXCEPTION_KEYS, token.key) ? EXCEPTION_KEYS[token.key] : undefined;
    if (exceptionKey) exceptionTests.push(cursor.compile(token, () => exceptionTest(exceptionKey, token)));
    else if (!frames.add(cursor, token)) subjectTests.push(subjectTest(cursor, token));
  }
  const { parts, fingerprint, title, titleTemplate } = readFingerprint(cursor);
  return {
    text,
    fingerprint,
    ...(title === undefined ? {} : { title, titleTemplate }),
    subjectTests,
    exceptionTests,
    frameMatchers: frames.count > 0,
    families: frames.families,
    frameTests: frames.tests(),
    parts,
  };
}

function exceptionTest(key: 'type' | 'value', token: MatcherToken): ExceptionTest {
  // Types are names (case-sensitive, as Sentry); values are text people write (case-insensitive).
  const glob = compileTextGlob(token.value, key === 'value');
  const positive: ExceptionTest = (exception) => exception[key] !== '' && glob(exception[key]);
  return token.negated ? (exception) => !positive(exception) : positive;
}

function subjectTest(cursor: Cursor, token: MatcherToken): SubjectTest {
  let positive: SubjectTest;
  if (token.key === 'message') {
    // As in Sentry, message also looks at the exceptions' values; negated, it means none of them matches.
    const glob = cursor.compile(token, () => compileTextGlob(token.value, true));
    positive = (subject) =>
      (subject.message !== undefined && subject.message !== '' && glob(subject.message)) || subject.exceptions.some((e) => e.value !== '' && glob(e.value));
  } else if (token.key === 'level') {
    if (!GLOB_SYNTAX.test(token.value) && !(LEVELS as readonly string[]).includes(token.value.toLowerCase()))
      throw cursor.error(`level: unknown level "${token.value}" (known: ${LEVELS.join(', ')})`, token.valueStart);
    const glob = cursor.compile(token, () => compileTextGlob(token.value, true));
    positive = (subject) => subject.level !== undefined && subject.level !== '' && glob(subject.level);
  } else if (token.key === 'release') {
    const glob = cursor.compile(token, () => compileTextGlob(token.value, true));
    positive = (subject) => subject.release !== undefined && subject.release !== '' && glob(subject.release);
  } else if (token.key.startsWith('tags.')) {
    const name = token.key.slice('tags.'.length);
    if (name === '') throw cursor.error('tags.<name>: the tag name is missing', token.start);
    const glob = cursor.compile(token, () => compileTextGlob(token.value, false));
    positive = (subject) => {
      const value = subject.tags && Object.hasOwn(subject.tags, name) ? subject.tags[name] : undefined;
      return value !== undefined && value !== '' && glob(value);
    };
  } else {
    throw cursor.error(`unknown matcher "${token.key}" (known: ${KNOWN_KEYS})`, token.start);
  }
  return token.negated ? (subject) => !positive(subject) : positive;
}

/** Reads what follows `->`: parts separated by commas or spaces, and an optional `title="…"`. */
function readFingerprint(cursor: Cursor): { parts: Template[]; fingerprint: string[]; title?: string; titleTemplate?: Template } {
  const parts: Template[] = [];
  const fingerprint: string[] = [];
  let title: string | undefined;
  let titleTemplate: Template | undefined;
  let afterComma = false;
  while (cursor.skipSpace()) {
    const start = cursor.pos;
    if (cursor.text[start] === ',') {
      if (afterComma || parts.length === 0) throw cursor.error('empty fingerprint part (two commas, or a comma first)');
      afterComma = true;
      cursor.pos++;
      continue;
    }
    ATTRIBUTE.lastIndex = start;
    const attribute = ATTRIBUTE.exec(cursor.text);
    if (attribute) {
      if (attribute[1] !== 'title') throw cursor.error(`unknown attribute "${attribute[1]}" (the only one is title="…")`);
      if (title !== undefined) throw cursor.error('title is given twice');
      cursor.pos += attribute[1].length + 1;
      title = cursor.quoted();
      titleTemplate = template(cursor, title, start, true);
    } else {
      const raw = cursor.text[start] === '"' ? cursor.quoted() : unquotedPart(cursor);
      if (raw === '') throw cursor.error('empty fingerprint part', start);
      const part = template(cursor, raw, start, false);
      parts.push(part);
      fingerprint.push(part.length === 1 && part[0] === DEFAULT_PART ? DEFAULT_PART : raw);
      afterComma = false;
    }
    if (!cursor.atEnd() && !/[ \t,]/.test(cursor.text[cursor.pos])) throw cursor.error('expected a space or a comma after the closing quote');
  }
  if (parts.length === 0) throw cursor.error('expected a fingerprint after ->: one or more parts separated by commas');
  if (afterComma) throw cursor.error('empty fingerprint part after the last comma');
  return { parts, fingerprint, ...(title === undefined ? {} : { title, titleTemplate }) };
}

/** An unquoted part runs to the next space or comma; a `{{ … }}` in it may contain spaces. */
function unquotedPart(cursor: Cursor): string {
  const text = cursor.text;
  const start = cursor.pos;
  let i = start;
  while (i < text.length && !/[ \t,]/.test(text[i])) {
    if (text.startsWith('{{', i)) {
      const close = text.indexOf('}}', i + 2);
      if (close < 0) throw cursor.error('"{{" is never closed by "}}"', i);
      i = close + 2;
    } else i++;
  }
  cursor.pos = i;
  return text.slice(start, i);
}

/** Splits a part (or the title) into literal text and variables, checking each variable. */
function template(cursor: Cursor, raw: string, column: number, isTitle: boolean): Template {
  const out: Array<string | Variable> = [];
  let rest = raw;
  for (;;) {
    const open = rest.indexOf('{{');
    if (open < 0) break;
    const close = rest.indexOf('}}', open + 2);
    if (close < 0) throw cursor.error('"{{" is never closed by "}}"', column);
    if (open > 0) out.push(rest.slice(0, open));
    const name = rest.slice(open + 2, close).trim();
    const variable =
      name.startsWith('tags.') && name.length > 'tags.'.length
        ? { tag: name.slice('tags.'.length) }
        : Object.hasOwn(VARIABLES, name.toLowerCase())
          ? VARIABLES[name.toLowerCase()]
          : undefined;
    if (variable === undefined || /\s/.test(name)) throw cursor.error(`unknown variable "{{ ${name} }}" (known: ${KNOWN_VARIABLES})`, column);
    if (variable === 'default') {
      if (isTitle) throw cursor.error('{{ default }} is a fingerprint part, not something a title can show', column);
      if (open > 0 || close + 2 < rest.length || out.length)
        throw cursor.error('{{ default }} must be a fingerprint part of its own: write "x, {{ default }}", not "x{{ default }}"', column);
      return [DEFAULT_PART];
    }
    out.push(variable);
    rest = rest.slice(close + 2);
  }
  if (rest !== '' || out.length === 0) out.push(rest);
  return out;
}

/** Where `{{ function }}` and `{{ module }}` look: the last in-app frame, else the last frame. */
function crashFrame(frames: readonly RuleFrame[]): RuleFrame | undefined {
  for (let i = frames.length - 1; i >= 0; i--) if (frames[i].in_app === true) return frames[i];
  return frames[frames.length - 1];
}

function expand(template: Template, subject: FingerprintSubject): string {
  if (template.length === 1 && typeof template[0] === 'string') return template[0];
  let out = '';
  for (const piece of template) {
    if (typeof piece === 'string') out += piece;
    else if ('name' in piece) {
      if (piece.name === 'type') out += subject.exceptions[0]?.type || '<no-type>';
      else if (piece.name === 'level') out += subject.level || '<no-level>';
      else out += crashFrame(subject.frames)?.[piece.name] || `<no-${piece.name}>`;
    } else {
      const value = subject.tags && Object.hasOwn(subject.tags, piece.tag) ? subject.tags[piece.tag] : undefined;
      out += value || `<no-value-for-tag-${piece.tag}>`;
    }
  }
  return out;
}

/**
 * The first rule whose matchers all hold, with its variables expanded (`{{ default }}` is kept for
 * the grouper), or undefined. Subject matchers (message, level, release, tags) each hold on their
 * own; type and value must hold on one exception of the chain; frame matchers (function, module,
 * path, package, family, app) must all hold on one frame.
 */
export function matchFingerprintRules(rules: readonly FingerprintRule[], subject: FingerprintSubject): FingerprintMatch | undefined {
  let views: FrameView[] | undefined;
  rules: for (const rule of rules) {
    for (const test of rule.subjectTests) if (!test(subject)) continue rules;
    if (rule.exceptionTests.length && !subject.exceptions.some((exception) => rule.exceptionTests.every((test) => test(exception)))) continue;
    if (rule.frameMatchers) {
      views ??= subject.frames.map((frame) => new FrameView(frame, frame));
      if (!views.some((view) => (view.bit & rule.families) !== 0 && rule.frameTests.every((test) => test(view)))) continue;
    }
    return {
      fingerprint: rule.parts.map((part) => expand(part, subject)),
      ...(rule.titleTemplate ? { title: expand(rule.titleTemplate, subject) } : {}),
      rule: rule.text,
    };
  }
  return undefined;
}
