import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import type { StackFrame } from '../../src/records/event.js';
import { MAX_FRAMES, parseStacktrace } from '../../connectors/exceptions/stacktrace-text.js';
import { stackFrameSchema } from '../../src/records/event-schema.js';

// ---------------------------------------------------------------------------------------------
// Real V8 stacks, made here: each call site carries a `// L:<name>` marker whose line number the
// parsed frame must report (vitest maps positions back to this file).
// ---------------------------------------------------------------------------------------------

const THIS_FILE = fileURLToPath(import.meta.url);
const SOURCE_LINES = readFileSync(THIS_FILE, 'utf8').split('\n');

function lineOf(marker: string): number {
  const index = SOURCE_LINES.findIndex((line) => line.endsWith(`// L:${marker}`));
  if (index < 0) throw new Error(`no marker ${marker}`);
  return index + 1;
}

function crash(): Error {
  return new Error('boom'); // L:crash
}

function named(): Error {
  return crash(); // L:named
}

class Widget {
  render(): Error {
    return named(); // L:method
  }
}

class Thing {
  error: Error;
  constructor() {
    this.error = new Widget().render(); // L:constructor
  }
}

function viaAnonymous(): Error {
  return (() => new Thing().error)(); // L:anonymous
}

function viaNative(): Error {
  return [0].map(() => viaAnonymous())[0]; // L:native
}

async function asyncInner(): Promise<Error> {
  await Promise.resolve();
  return viaNative(); // L:asyncInner
}

async function asyncOuter(): Promise<Error> {
  return await asyncInner(); // L:asyncOuter
}

async function realStack(): Promise<string> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  try {
    return (await asyncOuter()).stack ?? ''; // L:realStack
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function expectValidFrames(frames: StackFrame[]): void {
  for (const frame of frames) expect(stackFrameSchema.safeParse(frame).success, JSON.stringify(frame)).toBe(true);
}

describe('parseStacktrace: V8 stacks generated at test time', () => {
  it('orders frames oldest call first, the crashing frame last', async () => {
    const text = await realStack(); // L:test
    expect(text.split('\n')[0]).toBe('Error: boom');
    const frames = parseStacktrace(text);
    expectValidFrames(frames);
    const ours = frames.filter((frame) => frame.filename === THIS_FILE);
    expect(ours.map((frame) => frame.function)).toEqual([
      undefined, // the test's own arrow function, printed `at file:line:col`
      'realStack',
      'asyncOuter',
      'asyncInner',
      'viaNative',
      undefined, // the arrow passed to map (Array.map, a native frame, called it)
      'viaAnonymous',
      undefined, // the immediately invoked arrow
      'new Thing',
      'Widget.render',
      'named',
      'crash',
    ]);
    expect(ours.map((frame) => frame.lineno)).toEqual([
      lineOf('test'),
      lineOf('realStack'),
      lineOf('asyncOuter'),
      lineOf('asyncInner'),
      lineOf('native'),
      lineOf('native'),
      lineOf('anonymous'),
      lineOf('anonymous'),
      lineOf('constructor'),
      lineOf('method'),
      lineOf('named'),
      lineOf('crash'),
    ]);
    expect(frames[frames.length - 1]).toMatchObject({
      function: 'crash',
      filename: THIS_FILE,
      abs_path: THIS_FILE,
      lineno: lineOf('crash'),
      colno: SOURCE_LINES[lineOf('crash') - 1].indexOf('new Error') + 1,
      in_app: true,
      platform: 'node',
    });
    for (const frame of ours) expect(frame.in_app).toBe(true);
  });

  it("reads V8's own formatting (`at async fn`), which vitest's source-mapped stacks drop", async () => {
    // Without vitest's Error.prepareStackTrace, V8 formats the stack itself; positions are then
    // those of the transformed module, so only names, order and files are compared.
    const errorClass = Error as { prepareStackTrace?: unknown };
    const saved = errorClass.prepareStackTrace;
    errorClass.prepareStackTrace = undefined;
    let text: string;
    try {
      text = await realStack();
    } finally {
      errorClass.prepareStackTrace = saved;
    }
    expect(text).toMatch(/^\s+at async asyncOuter \(/m);
    const frames = parseStacktrace(text);
    expectValidFrames(frames);
    const ours = frames.filter((frame) => frame.filename === THIS_FILE);
    expect(ours.map((frame) => frame.function)).toEqual([
      undefined,
      'realStack',
      'asyncOuter',
      'asyncInner',
      'viaNative',
      undefined,
      'viaAnonymous',
      undefined,
      'new Thing',
      'Widget.render',
      'named',
      'crash',
    ]);
    for (const frame of ours) expect(frame).toMatchObject({ in_app: true, platform: 'node', abs_path: THIS_FILE });
    for (const frame of ours) expect(frame.lineno).toBeGreaterThan(0);
  });

  it('reads the native frame of Array.prototype.map and marks it not in app', async () => {
    const frames = parseStacktrace(await realStack());
    const map = frames.find((frame) => frame.function === 'Array.map');
    expect(map).toMatchObject({ filename: '<anonymous>', in_app: false, platform: 'node' });
    expect(map?.lineno).toBeUndefined();
    // map sits between its caller (viaNative) and its callback.
    const index = frames.indexOf(map!);
    expect(frames[index - 1].lineno).toBe(lineOf('native'));
    expect(frames[index - 1].function).toBe('viaNative');
  });

  it('marks node_modules and node: internals as not in app, file:// URLs stripped', async () => {
    const frames = parseStacktrace(await realStack());
    const outside = frames.filter((frame) => frame.filename !== THIS_FILE && frame.filename !== '<anonymous>');
    expect(outside.length).toBeGreaterThan(0); // vitest's runner called the test
    for (const frame of outside) {
      expect(frame.filename).not.toMatch(/^file:/);
      expect(frame.filename!.includes('node_modules') || frame.filename!.startsWith('node:')).toBe(true);
      expect(frame.in_app).toBe(false);
    }
  });

  it('skips the message line, even a multi-line message', () => {
    const error = new Error('line one\nline two: still message');
    const frames = parseStacktrace(error.stack!);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames[frames.length - 1].filename).toBe(THIS_FILE);
  });
});

describe('parseStacktrace: V8 syntax', () => {
  const text = [
    "TypeError: Cannot read properties of undefined (reading 'x')",
    '    at fn (/app/src/a.js:10:5)',
    '    at /app/src/b.js:20:7',
    '    at async handler (/app/src/c.js:30:9)',
    '    at new Foo (/app/src/d.js:40:11)',
    '    at Object.<anonymous> (/app/src/e.js:50:13)',
    '    at Module._compile (node:internal/modules/cjs/loader:1105:14)',
    '    at eval (eval at <anonymous> (/app/src/f.js:60:15), <anonymous>:1:1)',
    '    at Array.forEach (<anonymous>)',
    '    at JSON.parse (native)',
    '    at file:///home/me/app/main.mjs:70:17',
    '    at render (C:\\Users\\me\\app\\view.js:80:19)',
    '    at C:\\Users\\me\\app\\index.js:90:21',
    '    at query (/app/node_modules/pg/lib/client.js:100:23)',
    '    at async Promise.all (index 0)',
    '    at Obj.method [as alias] (/srv/dir (1)/g.js:110:25)',
    '    at <anonymous>',
  ].join('\n');

  it('reads every frame form, crash last', () => {
    const frames = parseStacktrace(text);
    expectValidFrames(frames);
    expect(frames.map((frame) => [frame.function, frame.filename, frame.lineno, frame.colno, frame.in_app])).toEqual(
      [
        ['fn', '/app/src/a.js', 10, 5, true],
        [undefined, '/app/src/b.js', 20, 7, true],
        ['handler', '/app/src/c.js', 30, 9, true],
        ['new Foo', '/app/src/d.js', 40, 11, true],
        ['Object.<anonymous>', '/app/src/e.js', 50, 13, true],
        ['Module._compile', 'node:internal/modules/cjs/loader', 1105, 14, false],
        ['eval', '/app/src/f.js', 60, 15, true],
        ['Array.forEach', '<anonymous>', undefined, undefined, false],
        ['JSON.parse', 'native', undefined, undefined, false],
        [undefined, '/home/me/app/main.mjs', 70, 17, true],
        ['render', 'C:\\Users\\me\\app\\view.js', 80, 19, true],
        [undefined, 'C:\\Users\\me\\app\\index.js', 90, 21, true],
        ['query', '/app/node_modules/pg/lib/client.js', 100, 23, false],
        ['Promise.all', undefined, undefined, undefined, false],
        ['Obj.method [as alias]', '/srv/dir (1)/g.js', 110, 25, true],
        [undefined, '<anonymous>', undefined, undefined, false],
      ].reverse(),
    );
  });

  it('sets abs_path for absolute paths only, and platform node', () => {
    const frames = parseStacktrace(text).reverse();
    expect(frames[0].abs_path).toBe('/app/src/a.js');
    expect(frames[5].abs_path).toBeUndefined(); // node:internal
    expect(frames[10].abs_path).toBe('C:\\Users\\me\\app\\view.js');
    expect(frames[9].abs_path).toBe('/home/me/app/main.mjs');
    expect(frames.every((frame) => frame.platform === 'node')).toBe(true);
  });

  it('decodes file:// URLs, Windows ones included', () => {
    const frames = parseStacktrace('Error\n    at x (file:///C:/my%20app/a.js:1:2)\n    at file:///srv/b%20c.js:3:4');
    expect(frames.map((frame) => frame.filename)).toEqual(['/srv/b c.js', 'C:/my app/a.js']);
  });

  it('stops at a util.inspect [cause] section', () => {
    const frames = parseStacktrace(['Error: outer', '    at outer (/a.js:1:1)', '  [cause]: Error: inner', '      at inner (/b.js:2:2)'].join('\n'));
    expect(frames.map((frame) => frame.function)).toEqual(['outer']);
  });

  it('keeps the 250 frames nearest the crash', () => {
    const lines = ['RangeError: Maximum call stack size exceeded'];
    for (let i = 0; i < 400; i++) lines.push(`    at f${i} (/app/r.js:${i + 1}:1)`);
    const frames = parseStacktrace(lines.join('\n'));
    expect(frames).toHaveLength(MAX_FRAMES);
    expect(frames[frames.length - 1].function).toBe('f0');
    expect(frames[0].function).toBe(`f${MAX_FRAMES - 1}`);
  });

  it('handles CRLF line breaks', () => {
    expect(parseStacktrace('Error: x\r\n    at a (/a.js:1:2)\r\n    at b (/b.js:3:4)\r\n').map((f) => f.function)).toEqual(['b', 'a']);
  });
});

// ---------------------------------------------------------------------------------------------
// Python
// ---------------------------------------------------------------------------------------------

const PYTHON = `Traceback (most recent call last):
  File "/srv/app/models.py", line 12, in load
    return json.loads(raw)
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "app/main.py", line 30, in <module>
    main()
  File "app/main.py", line 25, in main
    user = get_user(user_id)
           ^^^^^^^^^^^^^^^^^
  File "/srv/app/.venv/lib/python3.11/site-packages/requests/api.py", line 73, in get
    return request("get", url, params=params, **kwargs)
  File "/usr/lib/python3.11/dist-packages/urllib3/pool.py", line 5, in urlopen
  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load
ValueError: user not found
`;

describe('parseStacktrace: Python', () => {
  it('reads the last traceback (the raised exception), oldest first, crash last', () => {
    const frames = parseStacktrace(PYTHON, 'python');
    expectValidFrames(frames);
    expect(frames).toEqual([
      { filename: 'app/main.py', module: 'app.main', function: '<module>', lineno: 30, context_line: 'main()', in_app: true, platform: 'python' },
      { filename: 'app/main.py', module: 'app.main', function: 'main', lineno: 25, context_line: 'user = get_user(user_id)', in_app: true, platform: 'python' },
      {
        filename: '/srv/app/.venv/lib/python3.11/site-packages/requests/api.py',
        abs_path: '/srv/app/.venv/lib/python3.11/site-packages/requests/api.py',
        module: 'requests.api',
        function: 'get',
        lineno: 73,
        context_line: 'return request("get", url, params=params, **kwargs)',
        in_app: false,
        platform: 'python',
      },
      {
        filename: '/usr/lib/python3.11/dist-packages/urllib3/pool.py',
        abs_path: '/usr/lib/python3.11/dist-packages/urllib3/pool.py',
        module: 'urllib3.pool',
        function: 'urlopen',
        lineno: 5,
        in_app: false,
        platform: 'python',
      },
      { filename: '<frozen importlib._bootstrap>', function: '_find_and_load', lineno: 1176, in_app: false, platform: 'python' },
    ]);
  });

  it('marks the standard library not in app and derives its module', () => {
    const frames = parseStacktrace(PYTHON.split('\n\nThe above')[0]);
    expect(frames.map((frame) => [frame.module, frame.in_app])).toEqual([
      [undefined, true], // /srv/app/models.py: the import root is unknown
      ['json', false],
    ]);
  });

  it('is found without a hint', () => {
    expect(parseStacktrace(PYTHON)).toHaveLength(5);
  });
});

// ---------------------------------------------------------------------------------------------
// Java
// ---------------------------------------------------------------------------------------------

const JAVA = `Exception in thread "main" java.lang.IllegalStateException: could not load user
\tat com.example.users.UserService.load(UserService.java:42)
\tat com.example.users.UserService$Cache.lambda$get$0(UserService.java:88)
\tat java.base/java.util.HashMap.computeIfAbsent(HashMap.java:1228)
\tat jdk.internal.reflect.GeneratedMethodAccessor1.invoke(Unknown Source)
\tat app//com.example.Main.main(Main.java:10) ~[app.jar:1.0]
\tSuppressed: java.lang.RuntimeException: close failed
\t\tat com.example.Res.close(Res.java:3)
Caused by: java.io.IOException: disk on fire
\tat java.base/java.io.FileInputStream.readBytes(Native Method)
\tat com.example.users.Store.read(Store.java:7)
\t... 5 more
`;

describe('parseStacktrace: Java', () => {
  it('keeps a lambda class whole (its slash is not a module prefix)', () => {
    const frames = parseStacktrace(
      'java.lang.IllegalStateException: x\n\tat com.example.Orders$$Lambda$1581/0x00000008019b981c.apply(Unknown Source)\n',
      'java',
    );
    expect(frames).toEqual([{ module: 'com.example.Orders$$Lambda$1581/0x00000008019b981c', function: 'apply', in_app: true, platform: 'java' }]);
  });

  it('takes the top exception only, oldest first, crash last', () => {
    const frames = parseStacktrace(JAVA, 'java');
    expectValidFrames(frames);
    expect(frames).toEqual([
      { module: 'com.example.Main', function: 'main', filename: 'Main.java', lineno: 10, in_app: true, platform: 'java' },
      { module: 'jdk.internal.reflect.GeneratedMethodAccessor1', function: 'invoke', in_app: false, platform: 'java' },
      { module: 'java.util.HashMap', function: 'computeIfAbsent', filename: 'HashMap.java', lineno: 1228, in_app: false, platform: 'java' },
      { module: 'com.example.users.UserService$Cache', function: 'lambda$get$0', filename: 'UserService.java', lineno: 88, in_app: true, platform: 'java' },
      { module: 'com.example.users.UserService', function: 'load', filename: 'UserService.java', lineno: 42, in_app: true, platform: 'java' },
    ]);
  });

  it('is found without a hint, and a wrong hint falls back', () => {
    expect(parseStacktrace(JAVA)).toHaveLength(5);
    expect(parseStacktrace(JAVA, 'nodejs')).toHaveLength(5);
    expect(parseStacktrace(PYTHON, 'java')).toHaveLength(5);
  });

  it('ignores "... N more" and native-method frames have no file', () => {
    const frames = parseStacktrace('java.lang.Error: x\n\tat a.B.c(Native Method)\n\t... 3 more');
    expect(frames).toEqual([{ module: 'a.B', function: 'c', in_app: true, platform: 'java' }]);
  });
});

// ---------------------------------------------------------------------------------------------
// Garbage and hostile input
// ---------------------------------------------------------------------------------------------

describe('parseStacktrace: unknown text', () => {
  it('returns [] for text in no known format', () => {
    expect(parseStacktrace('')).toEqual([]);
    expect(parseStacktrace('something went wrong')).toEqual([]);
    expect(parseStacktrace('Error: x\nat the end of the day\n  File not found\n  at home')).toEqual([]);
    expect(parseStacktrace('{"stack": [1, 2, 3]}')).toEqual([]);
    expect(parseStacktrace('\n\n\n')).toEqual([]);
    expect(parseStacktrace('We met at the office (building 5)\n  at noon (sharp)\n  at :12')).toEqual([]);
  });

  it('parses 1 MB pathological lines quickly', () => {
    const mb = 1 << 20;
    const inputs = [
      '    at ' + '('.repeat(mb),
      '    at ' + ')'.repeat(mb),
      '    at ' + 'a ('.repeat(mb / 3) + ')',
      '    at ' + ':1'.repeat(mb / 2),
      '    at x (' + ':'.repeat(mb) + ')',
      '    at eval (eval at ' + 'eval at ('.repeat(mb / 9) + ')',
      '  File "' + 'x'.repeat(mb),
      '  File "x", line ' + '9'.repeat(mb),
      '\tat ' + 'a.'.repeat(mb / 2) + '(',
      '\tat ' + 'a.b('.repeat(mb / 4) + ')',
      '\tat a.b(X.java:1) ' + ' '.repeat(mb) + ']',
      ' '.repeat(mb) + 'x',
      'at '.repeat(mb / 3),
      '    at f (/a.js:1:1)\n'.repeat(mb / 21),
      '  File "a.py", line 1, in f\n    f()\n'.repeat(mb / 40),
    ];
    for (const input of inputs) {
      const started = performance.now();
      const frames = parseStacktrace(input);
      expect(frames.length).toBeLessThanOrEqual(MAX_FRAMES);
      expect(performance.now() - started, input.slice(0, 40)).toBeLessThan(1000);
    }
  });

  it('ignores line numbers too long to be numbers', () => {
    const frames = parseStacktrace(`Error\n    at f (/a.js:${'9'.repeat(40)}:1)`);
    expectValidFrames(frames);
  });
});

describe('SpiderMonkey and JavaScriptCore text', () => {
  it('reads fn@url:line:col frames, crash first, anonymous ones without a function', () => {
    const text =
      'applyDiscount@https://shop.example.com/static/app.min.js?v=3:1:73\n@https://shop.example.com/static/app.min.js?v=3:1:120\nrun@https://cdn.example.com/node_modules/lib.js:2:9\n';
    expect(parseStacktrace(text, 'javascript')).toEqual([
      {
        function: 'run',
        filename: 'https://cdn.example.com/node_modules/lib.js',
        abs_path: 'https://cdn.example.com/node_modules/lib.js',
        lineno: 2,
        colno: 9,
        in_app: false,
      },
      {
        filename: 'https://shop.example.com/static/app.min.js?v=3',
        abs_path: 'https://shop.example.com/static/app.min.js?v=3',
        lineno: 1,
        colno: 120,
        in_app: true,
      },
      {
        function: 'applyDiscount',
        filename: 'https://shop.example.com/static/app.min.js?v=3',
        abs_path: 'https://shop.example.com/static/app.min.js?v=3',
        lineno: 1,
        colno: 73,
        in_app: true,
      },
    ]);
  });
});
