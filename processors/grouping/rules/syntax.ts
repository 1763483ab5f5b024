// What stack-trace rules and fingerprint rules share: the error they throw, and a cursor that reads
// matchers (`key:value`, `!key:value`, `key:"quoted \" value"`) off a rule's text.

/** A rule that cannot be parsed. The message says where (1-based column) and what is wrong. */
export class RuleSyntaxError extends Error {
  override name = 'RuleSyntaxError';

  constructor(
    /** The rule's text, as given. */
    readonly rule: string,
    /** 1-based column of the offending token. */
    readonly column: number,
    /** What is wrong, without the position. */
    readonly problem: string,
  ) {
    super(`column ${column}: ${problem}`);
  }
}

/** A value a matcher cannot take (an unknown family, a bad glob): the parser adds the column. */
export class ValueError extends Error {
  override name = 'ValueError';
}

export interface MatcherToken {
  negated: boolean;
  /** The key as written (aliases not yet resolved). */
  key: string;
  value: string;
  /** 0-based offsets of the token (its `!` or key) and of its value. */
  start: number;
  valueStart: number;
}

const KEY = /(!?)([A-Za-z_][\w.-]*):/y;
const SPACE = /[ \t]/;

/** Whether a rule string is a comment (`# …`) or blank: such list entries are skipped. */
export function isCommentOrBlank(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

export class Cursor {
  pos = 0;
  /** The text with trailing whitespace (a YAML block scalar's newline) ignored. */
  private readonly end: number;

  constructor(readonly text: string) {
    this.end = text.trimEnd().length;
    const newline = text.slice(0, this.end).search(/[\r\n]/);
    if (newline >= 0) throw this.error('a rule is a single line: give each rule its own list entry', newline);
    if (isCommentOrBlank(text)) throw this.error(text.trim() === '' ? 'the rule is empty' : 'this is a comment, not a rule', 0);
  }

  error(problem: string, at = this.pos): RuleSyntaxError {
    return new RuleSyntaxError(this.text, at + 1, problem);
  }

  /** Skips spaces and tabs; true when something is left. */
  skipSpace(): boolean {
    while (this.pos < this.end && SPACE.test(this.text[this.pos])) this.pos++;
    return this.pos < this.end;
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  startsWith(text: string): boolean {
    return this.text.startsWith(text, this.pos);
  }

  /** The characters up to the next space (or the end). */
  word(): string {
    const start = this.pos;
    while (this.pos < this.end && !SPACE.test(this.text[this.pos])) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** Whether the cursor is at a matcher (`key:` or `!key:`), without moving. */
  atMatcher(): boolean {
    KEY.lastIndex = this.pos;
    return KEY.test(this.text);
  }

  /**
   * Reads the matcher at the cursor (call after `atMatcher()`). `stopAt` is a token that may
   * follow a quoted value without a space (`->` in fingerprint rules).
   */
  matcher(stopAt?: string): MatcherToken {
    const start = this.pos;
    KEY.lastIndex = start;
    const match = KEY.exec(this.text);
    if (!match) throw this.error('expected a matcher (key:value)');
    const [whole, bang, key] = match;
    this.pos = start + whole.length;
    const valueStart = this.pos;
    let value: string;
    if (this.text[this.pos] === '"') {
      value = this.quoted();
      if (!this.atEnd() && !SPACE.test(this.text[this.pos]) && !(stopAt && this.startsWith(stopAt)))
        throw this.error('expected a space after the closing quote');
    } else {
      value = this.word();
    }
    if (value === '') throw this.error(`matcher "${key}" has no value`, valueStart);
    return { negated: bang === '!', key, value, start, valueStart };
  }

  /** Runs a matcher's compilation, turning a ValueError into a RuleSyntaxError at the value's column. */
  compile<T>(token: MatcherToken, build: () => T): T {
    try {
      return build();
    } catch (error) {
      if (error instanceof ValueError) throw this.error(`${token.key}: ${error.message}`, token.valueStart);
      throw error;
    }
  }

  /** Reads a double-quoted string at the cursor. `\"` is a quote, `\\` a backslash; any other `\` is kept. */
  quoted(): string {
    const open = this.pos;
    let out = '';
    for (let i = open + 1; i < this.end; i++) {
      const char = this.text[i];
      if (char === '"') {
        this.pos = i + 1;
        return out;
      }
      if (char === '\\' && (this.text[i + 1] === '"' || this.text[i + 1] === '\\')) {
        out += this.text[++i];
      } else {
        out += char;
      }
    }
    throw this.error('unterminated quoted value: the " opened here is never closed', open);
  }
}
