import { describe, expect, it } from 'vitest';
import { type FingerprintSubject, matchFingerprintRules, parseFingerprintRule, type RuleFrame } from '../../../processors/grouping/rules/index.js';
import { expectSyntaxError } from './support.js';

const subject = (over: Partial<FingerprintSubject> = {}): FingerprintSubject => ({
  exceptions: [{ type: 'DatabaseError', value: 'Connection refused by db-1:5432' }],
  level: 'error',
  release: 'shop@2.4.1',
  tags: { region: 'eu-west', tier: 'gold' },
  frames: [],
  ...over,
});
const match = (rules: string[], s: FingerprintSubject) => matchFingerprintRules(rules.map(parseFingerprintRule), s);
const matches = (rule: string, s: FingerprintSubject) => match([rule], s) !== undefined;

describe('parseFingerprintRule', () => {
  it('reads matchers, parts and a title', () => {
    const rule = parseFingerprintRule('type:DatabaseError value:"connection*" -> database-connection, {{default}} title="Database down"');
    expect(rule.text).toBe('type:DatabaseError value:"connection*" -> database-connection, {{default}} title="Database down"');
    expect(rule.fingerprint).toEqual(['database-connection', '{{ default }}']);
    expect(rule.title).toBe('Database down');
  });

  it('separates parts by commas or spaces; quoted parts keep their spaces; {{ … }} may hold spaces', () => {
    expect(parseFingerprintRule('type:X -> a b,c ,  d').fingerprint).toEqual(['a', 'b', 'c', 'd']);
    expect(parseFingerprintRule('type:X -> "a b", "say \\"hi\\""').fingerprint).toEqual(['a b', 'say "hi"']);
    expect(parseFingerprintRule('type:X -> db-{{ type }}-x, {{  default  }}').fingerprint).toEqual(['db-{{ type }}-x', '{{ default }}']);
  });

  it('reads variable names case-insensitively, tag names as written', () => {
    expect(parseFingerprintRule('type:X -> {{ DEFAULT }}').fingerprint).toEqual(['{{ default }}']);
    expect(match(['type:* -> {{ Type }}, {{ tags.Region }}'], subject({ tags: { Region: 'us', region: 'eu' } }))?.fingerprint).toEqual(['DatabaseError', 'us']);
  });

  it('allows a quoted value right before -> and a title before the parts', () => {
    const rule = parseFingerprintRule('value:"a b"-> title="T" x');
    expect(rule.fingerprint).toEqual(['x']);
    expect(rule.title).toBe('T');
  });

  it.each([
    ['type:X', 7, 'expected -> and a fingerprint after the matchers'],
    ['type:X->y', 10, 'expected -> and a fingerprint after the matchers (put spaces around ->)'],
    ['-> x', 1, 'a fingerprint rule needs at least one matcher before ->'],
    ['type:X ->', 10, 'expected a fingerprint after ->: one or more parts separated by commas'],
    ['type:X -> title="T"', 20, 'expected a fingerprint after ->: one or more parts separated by commas'],
    ['type:X -> a,,b', 13, 'empty fingerprint part (two commas, or a comma first)'],
    ['type:X -> ,a', 11, 'empty fingerprint part (two commas, or a comma first)'],
    ['type:X -> a,', 13, 'empty fingerprint part after the last comma'],
    ['type:X -> ""', 11, 'empty fingerprint part'],
    ['type:X -> "a"b', 14, 'expected a space or a comma after the closing quote'],
    ['type:X -> a name="n"', 13, 'unknown attribute "name" (the only one is title="…")'],
    ['type:X -> a title="1" title="2"', 23, 'title is given twice'],
    ['type:X -> a title="T', 19, 'unterminated quoted value: the " opened here is never closed'],
    [
      'type:X -> {{ value }}',
      11,
      'unknown variable "{{ value }}" (known: {{ default }}, {{ type }}, {{ function }}, {{ module }}, {{ level }}, {{ tags.<name> }})',
    ],
    [
      'type:X -> {{ tags. }}',
      11,
      'unknown variable "{{ tags. }}" (known: {{ default }}, {{ type }}, {{ function }}, {{ module }}, {{ level }}, {{ tags.<name> }})',
    ],
    ['type:X -> {{}}', 11, 'unknown variable "{{  }}" (known: {{ default }}, {{ type }}, {{ function }}, {{ module }}, {{ level }}, {{ tags.<name> }})'],
    ['type:X -> a{{ type', 12, '"{{" is never closed by "}}"'],
    ['type:X -> "{{ type"', 11, '"{{" is never closed by "}}"'],
    ['type:X -> x-{{ default }}', 11, '{{ default }} must be a fingerprint part of its own: write "x, {{ default }}", not "x{{ default }}"'],
    ['type:X -> a title="{{ default }}"', 13, '{{ default }} is a fingerprint part, not something a title can show'],
    [
      'type:X -> a title="{{ nope }}"',
      13,
      'unknown variable "{{ nope }}" (known: {{ default }}, {{ type }}, {{ function }}, {{ module }}, {{ level }}, {{ tags.<name> }})',
    ],
    [
      'logger:django -> x',
      1,
      'unknown matcher "logger" (known: type, value, message, level, release, tags.<name>, family, function, module, path, package, app, stack.function, stack.module, stack.abs_path, stack.package, error.type, error.value)',
    ],
    ['tags.:x -> y', 1, 'tags.<name>: the tag name is missing'],
    ['level:eror -> y', 7, 'level: unknown level "eror" (known: fatal, error, warning, info, debug)'],
    ['family:web -> y', 8, 'family: unknown family "web" (known: javascript, native, jvm, python, go, other, all)'],
    ['app:sometimes -> y', 5, 'app: app takes yes or no, not "sometimes"'],
    ['type:"X -> y', 6, 'unterminated quoted value: the " opened here is never closed'],
    ['type:X y -> z', 8, 'expected a matcher (key:value) or ->, not "y"'],
    ['[ function:a ] | type:X -> z', 1, 'caller and callee matchers ([ … ] | and | [ … ]) are not supported: match the frame itself'],
    ['# database errors', 1, 'this is a comment, not a rule'],
  ])('rejects %j at column %i: %s', (text, column, problem) => expectSyntaxError(parseFingerprintRule, text, column, problem));
});

describe('fingerprint matchers', () => {
  it('type: case-sensitive glob on any exception of the chain', () => {
    const chain = subject({
      exceptions: [
        { type: 'CompletionException', value: 'wrapped' },
        { type: 'TimeoutException', value: 'took 30s' },
      ],
    });
    expect(matches('type:TimeoutException -> t', chain)).toBe(true);
    expect(matches('type:*Exception -> t', chain)).toBe(true);
    expect(matches('type:timeoutexception -> t', chain)).toBe(false);
    expect(matches('error.type:Completion* -> t', chain)).toBe(true);
  });

  it('value: case-insensitive glob on any exception of the chain', () => {
    expect(matches('value:"connection refused*" -> x', subject())).toBe(true);
    expect(matches('error.value:"*DB-1*" -> x', subject())).toBe(true);
    expect(matches('value:"connection timed out*" -> x', subject())).toBe(false);
  });

  it('type and value must hold on the same exception', () => {
    const chain = subject({
      exceptions: [
        { type: 'ServletException', value: 'connection reset' },
        { type: 'DatabaseError', value: 'deadlock' },
      ],
    });
    expect(matches('type:DatabaseError value:"connection*" -> x', chain)).toBe(false);
    expect(matches('type:DatabaseError value:deadlock -> x', chain)).toBe(true);
  });

  it('message: the message or any exception value, case-insensitive; negated, none of them', () => {
    expect(matches('message:"*timed out*" -> t', subject({ message: 'Upstream TIMED OUT after 30s' }))).toBe(true);
    expect(matches('message:"*refused*" -> t', subject({ message: 'query failed' }))).toBe(true);
    expect(matches('message:"*timed out*" -> t', subject({ message: 'query failed' }))).toBe(false);
    expect(matches('!message:"*refused*" -> t', subject({ message: 'query failed' }))).toBe(false);
    expect(matches('!message:"*deadlock*" -> t', subject({ message: 'query failed' }))).toBe(true);
  });

  it('level, release: case-insensitive globs; tags.<name>: case-sensitive glob on that tag', () => {
    expect(matches('level:ERROR -> x', subject())).toBe(true);
    expect(matches('level:warning -> x', subject())).toBe(false);
    expect(matches('level:w* -> x', subject({ level: 'warning' }))).toBe(true);
    expect(matches('release:shop@2.* -> x', subject())).toBe(true);
    expect(matches('release:shop@3.* -> x', subject())).toBe(false);
    expect(matches('tags.region:eu-* -> x', subject())).toBe(true);
    expect(matches('tags.region:EU-* -> x', subject())).toBe(false);
    expect(matches('tags.missing:* -> x', subject())).toBe(false);
    expect(matches('tags.constructor:* -> x', subject())).toBe(false);
    expect(matches('!tags.missing:x -> y', subject())).toBe(true);
  });

  it('frame matchers hold when one frame matches them all', () => {
    const frames: RuleFrame[] = [
      { family: 'jvm', function: 'query', module: 'org.hibernate.Session', in_app: false },
      { family: 'jvm', function: 'checkout', module: 'com.shop.Cart', abs_path: 'Cart.java', in_app: true },
    ];
    const s = subject({ frames });
    expect(matches('function:checkout -> x', s)).toBe(true);
    expect(matches('module:org.hibernate.* function:query -> x', s)).toBe(true);
    expect(matches('module:org.hibernate.* function:checkout -> x', s)).toBe(false);
    expect(matches('module:com.shop.* app:yes -> x', s)).toBe(true);
    expect(matches('module:org.hibernate.* app:yes -> x', s)).toBe(false);
    expect(matches('path:cart.java -> x', s)).toBe(true);
    expect(matches('family:jvm function:query -> x', s)).toBe(true);
    expect(matches('family:python function:query -> x', s)).toBe(false);
    expect(matches('family:python -> x', s)).toBe(false);
    expect(matches('stack.function:query -> x', s)).toBe(true);
    expect(matches('function:query -> x', subject())).toBe(false);
  });

  it('a rule matches only when all its matchers hold', () => {
    expect(matches('type:DatabaseError level:fatal -> x', subject())).toBe(false);
    expect(matches('type:DatabaseError level:error tags.tier:gold -> x', subject())).toBe(true);
  });

  it('negation: a type matcher is negated per exception, a subject matcher as a whole', () => {
    expect(matches('!type:DatabaseError -> x', subject())).toBe(false);
    expect(matches('!type:TimeoutError -> x', subject())).toBe(true);
    expect(matches('!level:error -> x', subject())).toBe(false);
    expect(matches('!release:x -> y', subject({ release: undefined }))).toBe(true);
  });
});

describe('matchFingerprintRules', () => {
  it('answers undefined without rules or without a match', () => {
    expect(matchFingerprintRules([], subject())).toBeUndefined();
    expect(match(['type:Nope -> x'], subject())).toBeUndefined();
  });

  it('takes the first matching rule and names it', () => {
    const rules = ['type:Other -> other', 'type:DatabaseError -> first', 'value:* -> second'];
    expect(match(rules, subject())).toEqual({ fingerprint: ['first'], rule: 'type:DatabaseError -> first' });
  });

  it('expands variables but keeps {{ default }} for the grouper', () => {
    const frames: RuleFrame[] = [
      { family: 'python', function: 'handle', module: 'app.views', in_app: true },
      { family: 'python', function: 'execute', module: 'psycopg2.cursor', in_app: false },
    ];
    const result = match(['type:* -> {{ type }}, {{ function }}@{{ module }}, {{ level }}, {{ tags.region }}, {{ default }}'], subject({ frames }));
    expect(result?.fingerprint).toEqual(['DatabaseError', 'handle@app.views', 'error', 'eu-west', '{{ default }}']);
  });

  it('takes {{ type }} from the outermost exception and {{ function }} from the last in-app frame, else the last frame', () => {
    const chain = subject({
      exceptions: [
        { type: 'CompletionException', value: 'x' },
        { type: 'TimeoutException', value: 'y' },
      ],
      frames: [
        { family: 'jvm', function: 'a', module: 'm.A' },
        { family: 'jvm', function: 'b', module: 'm.B' },
      ],
    });
    expect(match(['type:* -> {{ type }} {{ function }} {{ module }}'], chain)?.fingerprint).toEqual(['CompletionException', 'b', 'm.B']);
  });

  it('says what is missing', () => {
    const bare: FingerprintSubject = { exceptions: [], message: 'boom', frames: [] };
    expect(match(['message:boom -> {{ type }} {{ function }} {{ module }} {{ level }} {{ tags.region }}'], bare)?.fingerprint).toEqual([
      '<no-type>',
      '<no-function>',
      '<no-module>',
      '<no-level>',
      '<no-value-for-tag-region>',
    ]);
  });

  it('expands the title too', () => {
    expect(match(['type:* -> db title="{{ type }} in {{ tags.region }}"'], subject())).toEqual({
      fingerprint: ['db'],
      title: 'DatabaseError in eu-west',
      rule: 'type:* -> db title="{{ type }} in {{ tags.region }}"',
    });
  });

  it('keeps literal text as written', () => {
    expect(match(['type:* -> "a b", x{y}'], subject())?.fingerprint).toEqual(['a b', 'x{y}']);
  });
});
