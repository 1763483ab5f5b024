// Frame matchers (family, function, module, path, package, app), shared by stack-trace rules and
// fingerprint rules, and the view of a frame they match against.
import { basename, compilePathGlob, compileTextGlob, normalizePath, type PathGlob } from './glob.js';
import { type Cursor, type MatcherToken, ValueError } from './syntax.js';

export type Family = 'javascript' | 'native' | 'jvm' | 'python' | 'go' | 'other';
export const FAMILIES: readonly Family[] = ['javascript', 'native', 'jvm', 'python', 'go', 'other'];

/** The frame fields rules look at. The caller derives `family` from the frame's or event's platform. */
export interface RuleFrame {
  function?: string;
  module?: string;
  filename?: string;
  abs_path?: string;
  package?: string;
  in_app?: boolean;
  family: Family;
}

const PLATFORM_FAMILIES: Record<string, Family> = {
  javascript: 'javascript',
  node: 'javascript',
  typescript: 'javascript',
  java: 'jvm',
  android: 'jvm',
  kotlin: 'jvm',
  scala: 'jvm',
  groovy: 'jvm',
  clojure: 'jvm',
  python: 'python',
  go: 'go',
  native: 'native',
  c: 'native',
  cpp: 'native',
  'c++': 'native',
  objc: 'native',
  cocoa: 'native',
  swift: 'native',
  rust: 'native',
};

/** The family of a Sentry platform name (the frame's `platform`, else the event's): `other` when unknown or absent. */
export function familyForPlatform(platform: string | undefined): Family {
  const key = platform?.toLowerCase();
  return key !== undefined && Object.hasOwn(PLATFORM_FAMILIES, key) ? PLATFORM_FAMILIES[key] : 'other';
}

/** Each family is one bit, so that a rule's families are a mask and a frame's family a bit. */
const ALL_FAMILIES = (1 << FAMILIES.length) - 1;

export function familyBit(family: string): number {
  const index = FAMILIES.indexOf(family as Family);
  return 1 << (index < 0 ? FAMILIES.indexOf('other') : index);
}

/** The mask of a `family:` matcher (a comma list of families, or `all`), negation applied. */
export function familyMask(value: string, negated: boolean): number {
  const mask = positiveFamilyMask(value);
  return negated ? ALL_FAMILIES & ~mask : mask;
}

function positiveFamilyMask(value: string): number {
  let mask = 0;
  for (const name of value.toLowerCase().split(',')) {
    if (name === 'all') mask = ALL_FAMILIES;
    else if (FAMILIES.includes(name as Family)) mask |= familyBit(name);
    else if (name === '') throw new ValueError('a family list has an empty entry');
    else throw new ValueError(`unknown family "${name}" (known: ${FAMILIES.join(', ')}, all)`);
  }
  return mask;
}

const BOOLEANS: Record<string, boolean> = { yes: true, true: true, '1': true, no: false, false: false, '0': false };

function parseBoolean(key: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (!Object.hasOwn(BOOLEANS, lower)) throw new ValueError(`${key} takes yes or no, not "${value}"`);
  return BOOLEANS[lower];
}

interface NormalizedPath {
  /** As `normalizePath` gives it. */
  full: string;
  /** A relative path with `/` put in front (Sentry's rule: `/src/**` matches `src/app.js`); else undefined. */
  rooted: string | undefined;
  base: string;
}

function normalized(values: Array<string | undefined>): NormalizedPath[] {
  const out: NormalizedPath[] = [];
  for (const value of values) {
    if (!value) continue;
    const full = normalizePath(value);
    if (out.some((p) => p.full === full)) continue;
    out.push({ full, rooted: full.startsWith('/') ? undefined : `/${full}`, base: basename(full) });
  }
  return out;
}

/** A frame as matchers see it: its family bit, its in_app as rules have left it so far, and its paths normalized once. */
export class FrameView {
  readonly bit: number;
  private paths?: NormalizedPath[];
  private packages?: NormalizedPath[];

  constructor(
    readonly frame: RuleFrame,
    /** Where `app:` reads in_app; stack-trace rules pass the frame's verdict, which `±app` changes. */
    readonly state: { readonly in_app?: boolean },
  ) {
    this.bit = familyBit(frame.family);
  }

  pathValues(): readonly NormalizedPath[] {
    return (this.paths ??= normalized([this.frame.abs_path, this.frame.filename]));
  }

  packageValues(): readonly NormalizedPath[] {
    return (this.packages ??= normalized([this.frame.package]));
  }
}

export type FrameTest = (view: FrameView) => boolean;

const FRAME_KEYS = ['function', 'module', 'path', 'package', 'app'] as const;
type FrameKey = (typeof FRAME_KEYS)[number];

/** How much a test costs, to run the cheap ones first. */
const FRAME_KEY_COST: Record<FrameKey, number> = { app: 0, function: 1, module: 1, path: 2, package: 2 };

function pathTest(glob: PathGlob, values: readonly NormalizedPath[]): boolean {
  for (const path of values) {
    if (!glob.hasSlash) {
      if (glob.test(path.base)) return true;
    } else if (glob.test(path.full) || (path.rooted !== undefined && glob.test(path.rooted))) return true;
  }
  return false;
}

/** The test of one frame matcher, negation included. Throws ValueError for a bad value. */
function frameTest(key: FrameKey, value: string, negated: boolean): FrameTest {
  let positive: FrameTest;
  switch (key) {
    case 'function':
    case 'module': {
      const glob = compileTextGlob(value, false);
      positive = (view) => {
        const field = view.frame[key];
        return field !== undefined && field !== '' && glob(field);
      };
      break;
    }
    case 'path': {
      const glob = compilePathGlob(value);
      positive = (view) => pathTest(glob, view.pathValues());
      break;
    }
    case 'package': {
      const glob = compilePathGlob(value);
      positive = (view) => pathTest(glob, view.packageValues());
      break;
    }
    case 'app': {
      const wanted = parseBoolean('app', value);
      positive = (view) => (view.state.in_app === true) === wanted;
      break;
    }
  }
  return negated ? (view) => !positive(view) : positive;
}

/** Sentry's longer names for the frame matchers. */
const FRAME_ALIASES: Record<string, FrameKey> = {
  'stack.function': 'function',
  'stack.module': 'module',
  'stack.abs_path': 'path',
  'stack.package': 'package',
};

/** The frame matcher keys, for error messages. */
export const FRAME_MATCHER_KEYS: readonly string[] = ['family', ...FRAME_KEYS, ...Object.keys(FRAME_ALIASES)];

/**
 * A rule's frame matchers as it is parsed: `family:` matchers narrow a family mask, which skips a
 * frame (or a whole stack) with one AND; the others become tests, run cheapest first.
 */
export class FrameMatchers {
  families = ALL_FAMILIES;
  count = 0;
  private readonly list: Array<{ cost: number; test: FrameTest }> = [];

  /** Takes the token if it is a frame matcher (answering true); a bad value throws RuleSyntaxError. */
  add(cursor: Cursor, token: MatcherToken): boolean {
    const key = Object.hasOwn(FRAME_ALIASES, token.key) ? FRAME_ALIASES[token.key] : token.key;
    if (key === 'family') {
      this.families &= cursor.compile(token, () => familyMask(token.value, token.negated));
    } else if ((FRAME_KEYS as readonly string[]).includes(key)) {
      const frameKey = key as FrameKey;
      this.list.push({ cost: FRAME_KEY_COST[frameKey], test: cursor.compile(token, () => frameTest(frameKey, token.value, token.negated)) });
    } else return false;
    this.count++;
    return true;
  }

  tests(): FrameTest[] {
    return [...this.list].sort((a, b) => a.cost - b.cost).map((entry) => entry.test);
  }
}
