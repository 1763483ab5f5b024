// .NET frames, version 3: the C# compiler names what it generates with ordinals that change when
// the code around them changes — an async method's state machine `OrderService+<ProcessAsync>d__12`
// running `MoveNext`, a lambda's closure class `+<>c__DisplayClass5_0` or cached-lambda class `+<>c`
// with the lambda `<Run>b__0` or `<Run>b__5_1`, a local function `<Run>g__Helper|4_0` — while
// sentry-dotnet's enhanced stack traces write the same frames as C# signatures (`async
// Task<Order> OrderService.ProcessAsync(int orderId)`, `void ReportJob.Run()+(Order o) => { }`).
// Both become the type and the method, with `{lambda}` for a lambda.

const LONGEST = 1024;
/** `Outer+<ProcessAsync>d__12`: the async (or iterator) state machine of ProcessAsync. */
const STATE_MACHINE = /\+<([^<>]{1,200})>d__\d{1,6}$/;
/** `Outer+<>c__DisplayClass5_0`, `Outer+<>c`: where lambdas live. */
const CLOSURE_CLASS = /\+<>c(?:__DisplayClass\d{1,6}_\d{1,6})?$/;
/** `<Run>b__0`, `<Run>b__5_1`: a lambda in Run; `<Run>g__Helper|4_0`: a local function. */
const GENERATED_METHOD = /^<([^<>]{1,200})>(?:b__\d{1,6}(?:_\d{1,6})?|g__([^|]{1,200})\|\d{1,6}_\d{1,6})$/;
/** The runtime's frames between an await and its caller, reflection and the thread pool: they differ by .NET version. */
const RUNTIME_TYPE =
  /^System\.(?:Runtime\.(?:CompilerServices|ExceptionServices)\.|Reflection\.|RuntimeMethodHandle$|Threading\.(?:ExecutionContext|Tasks\.|ThreadPool))/;

export interface DotnetFrame {
  type: string | undefined;
  method: string | undefined;
}

/** The last name of a dotted path outside `<…>`: `OrderService.ProcessAsync` -> `ProcessAsync`. */
function lastName(text: string): string {
  const dot = text.lastIndexOf('.');
  return dot >= 0 ? text.slice(dot + 1) : text;
}

/** An enhanced-mode signature: `async Task<Order> OrderService.ProcessAsync(int orderId)` -> `ProcessAsync`; a lambda adds `{lambda}`. */
function signatureMethod(signature: string): string {
  const lambda = signature.indexOf(')+');
  const head = signature.slice(0, signature.indexOf('(') >= 0 ? signature.indexOf('(') : signature.length);
  let depth = 0;
  let plain = '';
  for (const c of head) {
    if (c === '<') depth++;
    else if (c === '>' && depth > 0) depth--;
    else if (depth === 0) plain += c;
  }
  const words = plain.trim().split(' ');
  const method = lastName(words[words.length - 1]);
  return lambda >= 0 ? `${method}{lambda}` : method;
}

/** The frame's type and method as the source names them. */
export function normalizeDotnetFrame(module: string | undefined, fn: string | undefined): DotnetFrame {
  let type = module?.slice(0, LONGEST);
  let method = fn?.trim().slice(0, LONGEST);
  const machine = type === undefined ? null : STATE_MACHINE.exec(type);
  if (type !== undefined && machine) {
    type = type.slice(0, machine.index);
    if (method === 'MoveNext' || method === undefined) method = machine[1];
  } else if (type !== undefined && CLOSURE_CLASS.test(type)) type = type.replace(CLOSURE_CLASS, '');
  if (method !== undefined) {
    const generated = GENERATED_METHOD.exec(method);
    if (generated) method = generated[2] !== undefined ? `${generated[1]}.${generated[2]}` : `${generated[1]}{lambda}`;
    else if (method.includes('(') || method.includes(' ')) method = signatureMethod(method);
  }
  return { type, method };
}

/** Await machinery, ExceptionDispatchInfo, reflection, the thread pool. */
export function isDotnetRuntimeType(type: string): boolean {
  return RUNTIME_TYPE.test(type);
}
