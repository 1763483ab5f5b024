// The same error, worded by each engine or OS. JavaScript: V8 (Chrome, Edge, Node), SpiderMonkey (Firefox)
// and JavaScriptCore (Safari) say it three ways. Grouping by message (when no frame carries
// information) reads them as one sentence. Only the wording is changed: the property, the variable
// and null-or-undefined stay, so two different mistakes stay two issues.

type Rewrite = readonly [RegExp, (...groups: string[]) => string];

const lastProperty = (expression: string): string =>
  expression
    .replace(/\(.*\)/g, '')
    .split('.')
    .pop() ?? expression;
const cannotAccess = (property: string, nullish: string) => `cannot access '${property}' of ${nullish}`;

const REWRITES: readonly Rewrite[] = [
  // V8: Cannot read properties of null (reading 'x') / Cannot set properties of undefined (setting 'x')
  [/^Cannot (?:read|set) properties of (null|undefined) \((?:reading|setting) '(.*)'\)$/s, (nullish, property) => cannotAccess(property, nullish)],
  // V8 before 9.3: Cannot read property 'x' of undefined
  [/^Cannot (?:read|set) property '(.*)' of (null|undefined)$/s, (property, nullish) => cannotAccess(property, nullish)],
  // SpiderMonkey: can't access property "x", a.b is undefined
  [/^can't access property "(.*)", .* is (null|undefined)$/s, (property, nullish) => cannotAccess(property, nullish)],
  // JavaScriptCore: undefined is not an object (evaluating 'a.b.x')
  [/^(null|undefined) is not an object \(evaluating '(.*)'\)$/s, (nullish, expression) => cannotAccess(lastProperty(expression), nullish)],
  // JavaScriptCore: Can't find variable: x — the others: x is not defined
  [/^Can't find variable: (.*)$/s, (name) => `${name} is not defined`],
  // JavaScriptCore adds what it evaluated: a.b is not a function. (In 'a.b()', 'a.b' is undefined)
  [/^(.*) is not a function\. \(In '.*', '.*' is .*\)$/s, (expression) => `${expression} is not a function`],
  // The end of the input: V8, SpiderMonkey, JavaScriptCore.
  [/^(?:Unexpected end of JSON input|JSON\.parse: unexpected end of data.*|JSON Parse error: Unexpected EOF)$/s, () => 'JSON: unexpected end of input'],
  // An unexpected character (often an HTML page where JSON was expected).
  [
    /^(?:Unexpected token .* in JSON at position \d+|Unexpected token .*, .* is not valid JSON|JSON\.parse: unexpected (?:character|keyword|non-whitespace character).*|JSON Parse error: Unrecognized token .*)$/s,
    () => 'JSON: unexpected token',
  ],
  // A fetch() that never got a response: Chrome and Edge, Firefox, Safari.
  [/^(?:Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed|The network connection was lost\.?)$/s, () => 'network error (fetch)'],
  // Stack overflow: V8 and JavaScriptCore call it a RangeError, SpiderMonkey an InternalError (see canonicalType).
  [/^(?:Maximum call stack size exceeded\.?|too much recursion)$/s, () => 'Maximum call stack size exceeded'],
];

/** One wording for the messages V8, SpiderMonkey and JavaScriptCore word differently; others unchanged. */
export function canonicalEngineMessage(value: string): string {
  for (const [pattern, rewrite] of REWRITES) {
    const match = pattern.exec(value);
    if (match) return rewrite(...match.slice(1));
  }
  return value;
}

/**
 * A crash's kind, whatever the OS calls it: a bad memory access is SIGSEGV or SIGBUS on Linux,
 * EXC_BAD_ACCESS on macOS and EXCEPTION_ACCESS_VIOLATION_READ on Windows — one bug on three systems
 * is one issue.
 */
const CRASH_KINDS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^(?:SIGSEGV|SIGBUS|EXC_BAD_ACCESS|(?:EXCEPTION|STATUS)_ACCESS_VIOLATION(?:_READ|_WRITE|_EXEC)?|EXCEPTION_IN_PAGE_ERROR|EXCEPTION_DATATYPE_MISALIGNMENT)$/,
    'bad memory access',
  ],
  [/^(?:SIGABRT|EXC_CRASH|abort)$/, 'abort'],
  [/^(?:SIGFPE|EXC_ARITHMETIC|EXCEPTION_(?:INT|FLT)_DIVIDE_BY_ZERO|EXCEPTION_INT_OVERFLOW)$/, 'arithmetic error'],
  [/^(?:SIGILL|EXC_BAD_INSTRUCTION|EXCEPTION_ILLEGAL_INSTRUCTION|EXCEPTION_PRIV_INSTRUCTION)$/, 'illegal instruction'],
  [/^(?:EXCEPTION_STACK_OVERFLOW|STATUS_STACK_OVERFLOW)$/, 'stack overflow'],
];

/**
 * The exception type as grouping compares it: SpiderMonkey's `InternalError: too much recursion` is
 * V8's and JavaScriptCore's `RangeError`; native crash signals and exception codes by their kind.
 */
export function canonicalType(type: string, value: string): string {
  if (type === 'InternalError' && /^too much recursion/.test(value)) return 'RangeError';
  for (const [pattern, kind] of CRASH_KINDS) if (pattern.test(type)) return kind;
  return type;
}
