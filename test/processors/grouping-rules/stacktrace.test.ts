import { describe, expect, it } from 'vitest';
import { applyStacktraceRules, familyForPlatform, parseStacktraceRule, type RuleFrame } from '../../../processors/grouping/rules/index.js';
import { expectSyntaxError } from './support.js';

const js = (frame: Partial<RuleFrame>): RuleFrame => ({ family: 'javascript', ...frame });
/** The verdicts of rules (one string each) over frames. */
const run = (rules: string[], frames: RuleFrame[]) => applyStacktraceRules(rules.map(parseStacktraceRule), frames);
/** Whether one rule's actions reach one frame: its verdict differs from the untouched one. */
const hits = (rule: string, frame: RuleFrame) => {
  const [verdict] = run([rule], [frame]);
  return verdict.group !== true || verdict.in_app !== frame.in_app;
};

describe('parseStacktraceRule', () => {
  it('keeps the text and reads matchers and actions', () => {
    const rule = parseStacktraceRule('family:javascript module:node_modules/** -app');
    expect(rule.text).toBe('family:javascript module:node_modules/** -app');
    expect(rule.actions).toEqual([{ key: 'app', flag: false, range: 'self' }]);
    expect(rule.tests).toHaveLength(1);
  });

  it('reads several actions, with ranges', () => {
    expect(parseStacktraceRule('function:panic ^-group v+app -group').actions).toEqual([
      { key: 'group', flag: false, range: 'up' },
      { key: 'app', flag: true, range: 'down' },
      { key: 'group', flag: false, range: 'self' },
    ]);
  });

  it('accepts tabs and several spaces between tokens, and a trailing newline', () => {
    expect(hits('function:foo \t  -group\n', js({ function: 'foo' }))).toBe(true);
  });

  it.each([
    [
      'fuction:foo -app',
      1,
      'unknown matcher "fuction" (known: family, function, module, path, package, app, stack.function, stack.module, stack.abs_path, stack.package)',
    ],
    ['function:foo', 13, 'a rule needs at least one action after its matchers: +app, -app, +group or -group'],
    ['-app', 1, 'a rule needs at least one matcher (for example path:**/vendor/**) before its actions'],
    ['function:foo -app module:x', 19, 'matchers come before the actions'],
    ['function:foo +application', 14, 'expected a matcher (key:value) or an action (+app, -app, +group, -group, optionally after ^ or v), not "+application"'],
    ['function:foo app', 14, 'expected a matcher (key:value) or an action (+app, -app, +group, -group, optionally after ^ or v), not "app"'],
    ['function:foo -app +app', 19, '"+app" repeats or contradicts "-app" in the same rule'],
    ['function: -app', 10, 'matcher "function" has no value'],
    ['function:"foo -app', 10, 'unterminated quoted value: the " opened here is never closed'],
    ['function:"foo"bar -app', 15, 'expected a space after the closing quote'],
    ['family:jvm,ruby -app', 8, 'family: unknown family "ruby" (known: javascript, native, jvm, python, go, other, all)'],
    ['family:jvm,,go -app', 8, 'family: a family list has an empty entry'],
    ['app:maybe -group', 5, 'app: app takes yes or no, not "maybe"'],
    ['function:[z-a] -group', 10, 'function: invalid bracket expression'],
    ['type:TimeoutError -group', 1, 'matcher "type" is not available in stack-trace rules, which see frames only (use it in a fingerprint rule)'],
    ['error.value:x -group', 1, 'matcher "error.value" is not available in stack-trace rules, which see frames only (use it in a fingerprint rule)'],
    ['function:foo max-frames=3', 14, '"max-frames=3": variable actions (max-frames, min-frames, category) are not supported'],
    ['[ function:foo ] | function:bar -group', 1, 'caller and callee matchers ([ … ] | and | [ … ]) are not supported: match the frame itself'],
    ['function:foo -app # vendored', 19, 'a comment must be on a line of its own'],
    ['# mark vendor code', 1, 'this is a comment, not a rule'],
    ['   ', 1, 'the rule is empty'],
    ['function:foo\nfunction:bar -app', 13, 'a rule is a single line: give each rule its own list entry'],
  ])('rejects %j at column %i: %s', (text, column, problem) => expectSyntaxError(parseStacktraceRule, text, column, problem));
});

describe('stack-trace rule matchers', () => {
  it('function and module: case-sensitive globs where * crosses everything', () => {
    expect(hits('function:*Proxy* -group', js({ function: 'com.acme.Foo$$Proxy/bar' }))).toBe(true);
    expect(hits('function:*Proxy* -group', js({ function: 'com.acme.proxy' }))).toBe(false);
    expect(hits('module:node_modules/** -app', js({ module: 'node_modules/react-dom/cjs/react-dom' }))).toBe(true);
    expect(hits('module:node_modules/** -app', js({ module: 'src/app' }))).toBe(false);
    expect(hits('function:foo -group', js({ module: 'foo' }))).toBe(false);
  });

  it('path: abs_path or filename, case-insensitive, ** across / and * within a segment', () => {
    expect(hits('path:**/vendor/** -app', js({ abs_path: '/srv/app/Vendor/lib/x.js' }))).toBe(true);
    expect(hits('path:**/vendor/** -app', js({ filename: 'vendor/x.js', abs_path: '/srv/app/src/x.js' }))).toBe(true);
    expect(hits('path:**/vendor/*.js -app', js({ abs_path: '/srv/vendor/lib/x.js' }))).toBe(false);
    expect(hits('path:**/vendor/** -app', js({ function: 'vendor' }))).toBe(false);
  });

  it('path: a URL is matched by its path, without origin or query', () => {
    const frame = js({ abs_path: 'https://cdn.example.com/assets/vendor/jquery.min.js?v=3.7' });
    expect(hits('path:/assets/vendor/*.js -app', frame)).toBe(true);
    expect(hits('path:**/cdn.example.com/** -app', frame)).toBe(false);
    expect(hits('path:*.min.js -app', frame)).toBe(true);
  });

  it('path: a pattern without / matches the file name', () => {
    expect(hits('path:jquery*.js -app', js({ abs_path: '/static/js/jquery-3.7.1.js' }))).toBe(true);
    expect(hits('path:static -app', js({ abs_path: '/static/js/jquery-3.7.1.js' }))).toBe(false);
  });

  it('package: path-like, matched on the file name without /', () => {
    expect(hits('package:libsystem_* -group', { family: 'native', package: '/usr/lib/system/libsystem_kernel.dylib' })).toBe(true);
    expect(hits('package:**/windows/system32/** -app', { family: 'native', package: 'C:\\Windows\\System32\\ntdll.dll' })).toBe(true);
    expect(hits('package:libc* -group', { family: 'native', package: '/usr/lib/libssl.so' })).toBe(false);
  });

  it('family: a comma list or all; a frame outside it never matches', () => {
    const frame: RuleFrame = { family: 'jvm', function: 'invoke' };
    expect(hits('family:jvm function:invoke -group', frame)).toBe(true);
    expect(hits('family:native,jvm function:invoke -group', frame)).toBe(true);
    expect(hits('family:javascript function:invoke -group', frame)).toBe(false);
    expect(hits('family:all function:invoke -group', frame)).toBe(true);
    expect(hits('family:JVM function:invoke -group', frame)).toBe(true);
  });

  it('family: negated, it means any other family', () => {
    expect(hits('!family:javascript function:invoke -group', { family: 'jvm', function: 'invoke' })).toBe(true);
    expect(hits('!family:javascript,jvm function:invoke -group', { family: 'jvm', function: 'invoke' })).toBe(false);
  });

  it('app: yes is in_app true; no is false or unknown', () => {
    expect(hits('app:yes -group', js({ in_app: true }))).toBe(true);
    expect(hits('app:yes -group', js({ in_app: false }))).toBe(false);
    expect(hits('app:no -group', js({ in_app: false }))).toBe(true);
    expect(hits('app:no -group', js({}))).toBe(true);
    expect(hits('app:no -group', js({ in_app: true }))).toBe(false);
    expect(hits('app:true -group', js({ in_app: true }))).toBe(true);
  });

  it('a leading ! negates a matcher; a missing field counts as not matching', () => {
    expect(hits('!app:yes function:log* -group', js({ function: 'logError', in_app: false }))).toBe(true);
    expect(hits('!app:yes function:log* -group', js({ function: 'logError', in_app: true }))).toBe(false);
    expect(hits('!function:log* -group', js({}))).toBe(true);
  });

  it('quoted values may hold spaces and \\" escapes; other backslashes stay', () => {
    expect(hits('function:"Object.<anonymous> (native)" -group', js({ function: 'Object.<anonymous> (native)' }))).toBe(true);
    expect(hits('function:"say \\"hi\\"" -group', js({ function: 'say "hi"' }))).toBe(true);
    expect(hits('function:"App\\Http\\*" -group', js({ function: 'App\\Http\\Kernel::handle' }))).toBe(true);
    expect(hits('function:"a\\\\b" -group', js({ function: 'a\\b' }))).toBe(true);
  });

  it('Sentry aliases: stack.function, stack.module, stack.abs_path, stack.package', () => {
    expect(hits('stack.function:std::* -group', { family: 'native', function: 'std::vector<int>::at' })).toBe(true);
    expect(hits('stack.module:django.* -app', { family: 'python', module: 'django.core.handlers' })).toBe(true);
    expect(hits('stack.abs_path:**/site-packages/** -app', { family: 'python', abs_path: '/usr/lib/python3/site-packages/x.py' })).toBe(true);
    expect(hits('stack.package:*.dll -app', { family: 'native', package: 'C:\\x\\foo.dll' })).toBe(true);
  });

  it('all matchers of a rule must hold on the same frame', () => {
    const frames: RuleFrame[] = [{ family: 'native', function: 'std::sort' }, js({ function: 'std::map' })];
    expect(run(['family:native function:std::map -group'], frames).map((v) => v.group)).toEqual([true, true]);
  });
});

describe('applyStacktraceRules', () => {
  const stack: RuleFrame[] = [
    js({ function: 'main', abs_path: '/app/src/main.js', in_app: true }),
    js({ function: 'dispatch', abs_path: '/app/node_modules/express/router.js', in_app: true }),
    js({ function: 'handler', abs_path: '/app/src/handler.js' }),
    js({ function: 'logError', abs_path: '/app/src/log.js', in_app: true }),
  ];

  it('gives each frame its own in_app and group: true without rules', () => {
    expect(applyStacktraceRules([], stack)).toEqual([
      { in_app: true, group: true },
      { in_app: true, group: true },
      { in_app: undefined, group: true },
      { in_app: true, group: true },
    ]);
    expect(applyStacktraceRules([parseStacktraceRule('function:x -group')], [])).toEqual([]);
  });

  it('applies +app, -app, +group and -group to the matching frames only', () => {
    expect(run(['path:**/node_modules/** -app', 'path:**/src/handler.js +app', 'function:log* -group'], stack)).toEqual([
      { in_app: true, group: true },
      { in_app: false, group: true },
      { in_app: true, group: true },
      { in_app: true, group: false },
    ]);
  });

  it('lets later rules override earlier ones', () => {
    expect(run(['path:**/src/** -group', 'function:main +group'], stack).map((v) => v.group)).toEqual([true, true, false, false]);
    expect(run(['function:main +group', 'path:**/src/** -group'], stack).map((v) => v.group)).toEqual([false, true, false, false]);
  });

  it('lets a rule see in_app as earlier rules left it', () => {
    const verdicts = run(['path:**/node_modules/** -app', 'app:no -group'], stack);
    expect(verdicts.map((v) => v.group)).toEqual([true, false, false, true]);
  });

  it('^ applies to the frames after the match (towards the crash), v to those before it', () => {
    expect(run(['function:dispatch ^-group'], stack).map((v) => v.group)).toEqual([true, true, false, false]);
    expect(run(['function:dispatch v-group'], stack).map((v) => v.group)).toEqual([false, true, true, true]);
    expect(run(['function:handler v-app'], stack).map((v) => v.in_app)).toEqual([false, false, undefined, true]);
  });

  it('a range action and a frame action of one rule combine, each match in turn', () => {
    const frames = [js({ function: 'a' }), js({ function: 'wrap' }), js({ function: 'b' }), js({ function: 'wrap' }), js({ function: 'c' })];
    expect(run(['function:wrap ^-group +group'], frames).map((v) => v.group)).toEqual([true, true, false, true, false]);
  });

  it('skips a rule for a family the stack does not have, and a frame of another family', () => {
    const mixed: RuleFrame[] = [{ family: 'native', function: 'std::sort' }, js({ function: 'std::sort' })];
    expect(run(['family:native function:std::* -group'], mixed).map((v) => v.group)).toEqual([false, true]);
    expect(run(['family:python function:* -group'], mixed).map((v) => v.group)).toEqual([true, true]);
  });

  it('treats an unknown family from the caller as other', () => {
    const frame = { family: 'ruby', function: 'x' } as unknown as RuleFrame;
    expect(run(['family:other function:x -group'], [frame])[0].group).toBe(false);
  });

  it('does not change the frames it is given', () => {
    const frames = [js({ function: 'main', in_app: true })];
    run(['function:main -app'], frames);
    expect(frames[0].in_app).toBe(true);
  });
});

describe('familyForPlatform', () => {
  it('maps Sentry platform names to families, other when unknown or absent', () => {
    expect(
      ['javascript', 'node', 'java', 'android', 'kotlin', 'python', 'go', 'native', 'cocoa', 'swift', 'C', 'ruby', 'php', undefined].map(familyForPlatform),
    ).toEqual(['javascript', 'javascript', 'jvm', 'jvm', 'jvm', 'python', 'go', 'native', 'native', 'native', 'native', 'other', 'other', 'other']);
    expect(familyForPlatform('constructor')).toBe('other');
  });
});
