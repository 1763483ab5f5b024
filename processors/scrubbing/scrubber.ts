// One project's compiled scrubbing options, applied to JSON values in place. The walk keeps the
// path as a stack of keys and joins it only when it records what it scrubbed, so a value with
// nothing to scrub costs one key test per key and one prefilter test per string.
import { createHash } from 'node:crypto';
import type { RE2JS } from 're2js';
import {
  compileUserPattern,
  FILTERED,
  parseSelector,
  type PatternKind,
  type ScrubbedPath,
  type ScrubbingOptions,
  type ScrubMethod,
  type Selector,
  type SelectorSegment,
} from '../../src/records/data-scrubbing.js';
import {
  authCredentials,
  awsKeys,
  creditCards,
  DEFAULT_FINDERS_NEED,
  emails,
  FINDERS,
  ipAddresses,
  privateKeys,
  sensitivePairs,
  type Finder,
  type Span,
} from './detectors.js';

/** Keys the default rules scrub: a key (lower-cased) containing one of these. */
const SENSITIVE_KEY = /passw(?:or)?d|pwd|secret|token|api[-_.]?key|auth|credential|session|sessid|cookie|csrf|private[-_.]?key/;
/** Keys scrub_ip scrubs whole. */
const IP_KEYS = new Set([
  'ip_address',
  'ip',
  'remote_addr',
  'client.address',
  'client_ip',
  'http.client_ip',
  'net.peer.ip',
  'net.sock.peer.addr',
  'x-forwarded-for',
  'x-real-ip',
]);
/** Keys seen and the rule that scrubs each (or none): keys repeat from event to event. */
const KEY_CACHE_SIZE = 10_000;
/** At most this many entries in a `scrubbed` list: the rest is counted in its last entry. */
const MAX_RECORDED = 100;

const REMOVE = Symbol('remove');
type Visited = unknown | typeof REMOVE;

interface KnownKey {
  /** The rule that scrubs the whole value under the key (defaults and options), if any. */
  rule: string | undefined;
  /** A safe field: the defaults and options leave what is under it. */
  safe: boolean;
}

interface CompiledRule {
  name: string;
  selector: Selector;
  /** Undefined: the rule applies to the whole selected value. */
  find?: Finder;
  method: ScrubMethod;
  replacement: string;
}

export class Scrubber {
  private readonly defaults: boolean;
  private readonly extraKeys: string[];
  private readonly safe: Set<string>;
  private readonly options: ScrubbingOptions;
  private readonly wholeRules: CompiledRule[];
  private readonly stringRules: CompiledRule[];
  private readonly path: Array<string | number> = [];
  private safeDepth = 0;
  private recorded: ScrubbedPath[] = [];
  private seen = new Set<string>();
  private dropped = 0;
  private changeCount = 0;
  private readonly keys = new Map<string, KnownKey>();
  /** scrub_ip or scrub_email: the per-string options. */
  private readonly anyOption: boolean;

  constructor(
    options: ScrubbingOptions,
    /** Mixed into every hash, so one value hashes differently in two projects. */
    private readonly salt = '',
  ) {
    this.options = options;
    this.defaults = options.defaults;
    this.extraKeys = options.sensitive_fields.map((f) => f.toLowerCase());
    this.safe = new Set(options.safe_fields.map((f) => f.toLowerCase()));
    this.anyOption = options.scrub_ip || options.scrub_email;
    const rules = options.rules.map((rule, index) => compileRule(rule, index));
    this.wholeRules = rules.filter((r) => r.find === undefined);
    this.stringRules = rules.filter((r) => r.find !== undefined);
  }

  get maskAllText(): boolean {
    return this.options.mask_all_text;
  }

  get maskAllInputs(): boolean {
    return this.options.mask_all_inputs;
  }

  /** Starts an item: clears what the previous one recorded. */
  begin(): void {
    this.recorded = [];
    this.seen.clear();
    this.dropped = 0;
    this.path.length = 0;
    this.safeDepth = 0;
  }

  /** How many changes the scrubber has made (recorded or not): a walk that leaves it as it was changed nothing. */
  get changes(): number {
    return this.changeCount;
  }

  /** What the current item had scrubbed, by path and rule. */
  scrubbed(): ScrubbedPath[] {
    if (this.dropped === 0) return this.recorded;
    return [...this.recorded, { path: `(${this.dropped} more)`, rule: 'many' }];
  }

  /** Scrubs `holder[key]` in place (deleting it when a rule removes it), under the path `key`. */
  field(holder: object, key: string): void {
    const current: unknown = Reflect.get(holder, key);
    if (current === undefined) return;
    this.path.push(key);
    const value = this.visit(current, key);
    this.path.pop();
    if (value === REMOVE) Reflect.deleteProperty(holder, key);
    else if (value !== current) Reflect.set(holder, key, value);
  }

  /** Runs `body` with `segment` added to the path (e.g. an array index whose element the caller scrubs field by field). */
  within(segment: string | number, body: () => void): void {
    this.path.push(segment);
    try {
      body();
    } finally {
      this.path.pop();
    }
  }

  /** Records that `rule` changed the value at the current path (plus `segment`): for scrubbing done outside the walk (replay masking). */
  note(rule: string, segment?: string | number): void {
    if (segment !== undefined) this.path.push(segment);
    this.record(rule);
    if (segment !== undefined) this.path.pop();
  }

  /** A string at the current path, scrubbed by the defaults, the options and the string rules. */
  text(value: string): string {
    let out = value;
    // Shorter strings can hold nothing the defaults look for but a `name=value` pair.
    if (this.defaults && this.safeDepth === 0 && (out.length < 8 ? out.includes('=') : DEFAULT_FINDERS_NEED.test(out))) out = this.defaultPatterns(out);
    if (this.safeDepth === 0 && this.anyOption) {
      if (this.options.scrub_email && out.includes('@')) out = this.replaceSpans(out, emails(out), '@email', 'replace', FILTERED);
      if (this.options.scrub_ip) out = this.replaceSpans(out, ipAddresses(out), '@ip', 'replace', FILTERED);
    }
    if (this.stringRules.length === 0) return out;
    for (const rule of this.stringRules) {
      if (!this.selects(rule.selector, true)) continue;
      out = this.replaceSpans(out, (rule.find as Finder)(out), rule.name, rule.method, rule.replacement);
    }
    return out;
  }

  /** `key`: the key the value is under (as sent), undefined for an array element. */
  private visit(value: unknown, key: string | undefined): Visited {
    if (value === null || value === undefined) return value;
    if (this.wholeRules.length > 0)
      for (const rule of this.wholeRules) {
        if (this.selects(rule.selector, typeof value === 'string')) {
          this.record(rule.name);
          return this.whole(rule, value);
        }
      }
    const known = key === undefined ? undefined : this.knownKey(key);
    // A number or boolean under a sensitive-sounding key (sessionSampleRate, token_count) is no secret.
    if (known !== undefined && this.safeDepth === 0 && typeof value !== 'number' && typeof value !== 'boolean') {
      const rule = known.rule;
      if (rule !== undefined) {
        this.record(rule);
        return FILTERED;
      }
    }
    if (typeof value !== 'string' && typeof value !== 'object') return value;
    const safe = known?.safe === true;
    if (!safe) return this.inner(value);
    this.safeDepth++;
    try {
      return this.inner(value);
    } finally {
      this.safeDepth--;
    }
  }

  private inner(value: string | object): Visited {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        this.path.push(i);
        const next = this.visit(value[i], undefined);
        this.path.pop();
        if (next === REMOVE) value[i] = null;
        else if (next !== value[i]) value[i] = next;
      }
    } else {
      const object = value as Record<string, unknown>;
      for (const name in object) {
        const child = object[name];
        this.path.push(name);
        const next = this.visit(child, name);
        this.path.pop();
        if (next === REMOVE) delete object[name];
        else if (next !== child) object[name] = next;
      }
    }
    return value;
  }

  /** Whether a pair's name (lower-cased) is secret: keyRule, remembered with the keys (a lower-cased key's rule is its own). */
  private readonly sensitiveName = (lowerName: string): boolean => this.knownKey(lowerName).rule !== undefined;

  /** What a key (as sent) calls for, remembered per key. */
  private knownKey(key: string): KnownKey {
    let known = this.keys.get(key);
    if (known === undefined) {
      const lower = key.toLowerCase();
      known = { rule: this.keyRule(lower), safe: this.safe.has(lower) };
      if (this.keys.size >= KEY_CACHE_SIZE) this.keys.clear();
      this.keys.set(key, known);
    }
    return known;
  }

  /** The rule that scrubs a whole value under this key, if any: `@password` (defaults and sensitive_fields) or `@ip`. */
  private keyRule(lowerKey: string): string | undefined {
    if (this.safe.has(lowerKey)) return undefined;
    if (this.defaults && SENSITIVE_KEY.test(lowerKey)) return '@password';
    for (const extra of this.extraKeys) if (lowerKey.includes(extra)) return '@password';
    if (this.options.scrub_ip && IP_KEYS.has(lowerKey)) return '@ip';
    return undefined;
  }

  private defaultPatterns(value: string): string {
    let out = value;
    if (out.includes('-----BEGIN ')) out = this.replaceSpans(out, privateKeys(out), '@privatekey', 'replace', FILTERED);
    out = this.replaceSpans(out, authCredentials(out), '@bearer', 'replace', FILTERED);
    out = this.replaceSpans(out, awsKeys(out), '@awskey', 'replace', FILTERED);
    out = this.replaceSpans(out, creditCards(out), '@creditcard', 'replace', FILTERED);
    if (out.includes('=')) out = this.replaceSpans(out, sensitivePairs(out, this.sensitiveName), '@password', 'replace', FILTERED);
    return out;
  }

  private replaceSpans(text: string, spans: Span[], rule: string, method: ScrubMethod, replacement: string): string {
    if (spans.length === 0) return text;
    this.record(rule);
    let out = '';
    let at = 0;
    for (const [start, end] of spans) {
      if (start < at) continue;
      out += text.slice(at, start) + this.rewrite(text.slice(start, end), method, replacement);
      at = end;
    }
    return out + text.slice(at);
  }

  private rewrite(text: string, method: ScrubMethod, replacement: string): string {
    switch (method) {
      case 'replace':
        return replacement;
      case 'mask':
        return '*'.repeat(text.length);
      case 'hash':
        return this.hash(text);
      case 'remove':
        return '';
    }
  }

  private whole(rule: CompiledRule, value: unknown): Visited {
    if (rule.method === 'remove') return REMOVE;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (rule.method === 'mask') return typeof value === 'string' ? '*'.repeat(text.length) : FILTERED;
    return this.rewrite(text, rule.method, rule.replacement);
  }

  private hash(text: string): string {
    return createHash('sha256').update(this.salt).update('\0').update(text).digest('hex').slice(0, 32);
  }

  private selects(selector: Selector, isString: boolean): boolean {
    if (selector.kind === 'string') return isString;
    return matchPath(selector.segments, 0, this.path, 0);
  }

  private record(rule: string): void {
    this.changeCount++;
    const path = this.path.map(pathSegment).join('.');
    const key = `${path}\u0000${rule}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.recorded.length < MAX_RECORDED) this.recorded.push({ path, rule });
    else this.dropped++;
  }
}

/** Whether the selector's segments from `s` match the path's keys from `p`: `*` one key, `**` any number. */
function matchPath(segments: SelectorSegment[], s: number, path: ReadonlyArray<string | number>, p: number): boolean {
  while (s < segments.length) {
    const segment = segments[s];
    if (segment.kind === 'deep') {
      if (s === segments.length - 1) return true;
      for (let q = p; q <= path.length; q++) if (matchPath(segments, s + 1, path, q)) return true;
      return false;
    }
    if (p >= path.length) return false;
    if (segment.kind === 'key' && String(path[p]).toLowerCase() !== segment.key) return false;
    s++;
    p++;
  }
  return p === path.length;
}

function pathSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  return segment.includes('.') || segment.includes("'") ? `'${segment}'` : segment;
}

function compileRule(rule: ScrubbingOptions['rules'][number], index: number): CompiledRule {
  const selector = parseSelector(rule.selector);
  if (typeof selector === 'string') throw new Error(`rules[${index}].selector: ${selector}`);
  let find: Finder | undefined;
  if (rule.pattern?.startsWith('@')) find = FINDERS[rule.pattern.slice(1) as PatternKind];
  else if (rule.pattern !== undefined) {
    const compiled = compileUserPattern(rule.pattern);
    if (typeof compiled === 'string') throw new Error(`rules[${index}].pattern: ${compiled}`);
    find = re2Finder(compiled);
  }
  return { name: rule.id ?? `rules[${index}]`, selector, find, method: rule.method, replacement: rule.replacement ?? FILTERED };
}

function re2Finder(pattern: RE2JS): Finder {
  return (text) => {
    const spans: Span[] = [];
    const matcher = pattern.matcher(text);
    while (matcher.find()) {
      const start = matcher.start();
      const end = matcher.end();
      if (end > start) spans.push([start, end]);
    }
    return spans;
  };
}
