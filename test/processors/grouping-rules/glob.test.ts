import { describe, expect, it } from 'vitest';
import { basename, compilePathGlob, compileTextGlob, normalizePath } from '../../../processors/grouping/rules/glob.js';
import { ValueError } from '../../../processors/grouping/rules/syntax.js';

const text = (pattern: string, value: string, caseInsensitive = false) => compileTextGlob(pattern, caseInsensitive)(value);
/** A path glob against a raw path, as the path matcher does it (basename for a pattern without `/`, rooted for a relative path). */
const path = (pattern: string, raw: string) => {
  const glob = compilePathGlob(pattern);
  const value = normalizePath(raw);
  if (!glob.hasSlash) return glob.test(basename(value));
  return glob.test(value) || (!value.startsWith('/') && glob.test(`/${value}`));
};

describe('text globs', () => {
  it('let * cross / and newlines, and ? match one character of any kind', () => {
    expect(text('*Proxy*', 'com/acme/Foo$Proxy/bar')).toBe(true);
    expect(text('init*', 'initExportMenu/</<')).toBe(true);
    expect(text('*timed out*', 'request\ntimed out\nafter 5s')).toBe(true);
    expect(text('a?c', 'a/c')).toBe(true);
    expect(text('a?c', 'a//c')).toBe(false);
    expect(text('node_modules/**', 'node_modules/react-dom/cjs/react-dom.production')).toBe(true);
  });

  it('match the whole value, not a part of it', () => {
    expect(text('Proxy', 'FooProxy')).toBe(false);
    expect(text('std::*', 'mystd::vector')).toBe(false);
  });

  it('treat everything but * ? and [...] literally: parentheses, braces, $, +, !, |, ., \\', () => {
    expect(text('*(int)', 'SceneGraph::update(int)')).toBe(true);
    expect(text('*(int)', 'SceneGraph::update(double)')).toBe(false);
    expect(text('{a,b}', '{a,b}')).toBe(true);
    expect(text('{a,b}', 'a')).toBe(false);
    expect(text('$$Enhancer*', '$$EnhancerBySpringCGLIB$$32e64f86')).toBe(true);
    expect(text('+(a)', '+(a)')).toBe(true);
    expect(text('!x', '!x')).toBe(true);
    expect(text('a|b', 'a')).toBe(false);
    expect(text('a.b', 'axb')).toBe(false);
    expect(text('App\\Http\\*', 'App\\Http\\Kernel::handle')).toBe(true);
    expect(text('<lambda_*>', '<lambda_39a4c0>')).toBe(true);
  });

  it('support bracket expressions, negated with ! or ^, and [*] for a literal star', () => {
    expect(text('lambda$*$[0-9]', 'lambda$fetchAll$0')).toBe(true);
    expect(text('lambda$*$[0-9]', 'lambda$fetchAll$x')).toBe(false);
    expect(text('[!a]b', 'cb')).toBe(true);
    expect(text('[!a]b', 'ab')).toBe(false);
    expect(text('[^a]b', 'ab')).toBe(false);
    expect(text('a[*]', 'a*')).toBe(true);
    expect(text('a[*]', 'ab')).toBe(false);
    expect(text('[abc', '[abc')).toBe(true);
  });

  it('are case-sensitive unless asked otherwise', () => {
    expect(text('CONN*', 'connection refused')).toBe(false);
    expect(text('CONN*', 'connection refused', true)).toBe(true);
  });

  it('decide a pattern without wildcards by equality', () => {
    expect(text('main', 'main')).toBe(true);
    expect(text('main', 'main2')).toBe(false);
    expect(text('main', 'Main')).toBe(false);
    expect(text('MAIN', 'main', true)).toBe(true);
  });

  it('read ] right after [ as a member, and keep ranges whose ends differ in case', () => {
    expect(text('[]a]x', ']x')).toBe(true);
    expect(text('[Z-a]', '_', true)).toBe(true);
  });

  it('reject a bracket expression that is no valid range', () => {
    expect(() => compileTextGlob('[z-a]', false)).toThrow(ValueError);
  });
});

describe('path globs', () => {
  it('keep * and ? within a segment and let ** cross segments', () => {
    expect(path('**/vendor/*.js', '/app/vendor/x.js')).toBe(true);
    expect(path('**/vendor/*.js', '/app/vendor/sub/x.js')).toBe(false);
    expect(path('**/vendor/**', '/app/vendor/sub/x.js')).toBe(true);
    expect(path('/app/?.js', '/app/x.js')).toBe(true);
    expect(path('/app/?.js', '/app/x/.js')).toBe(false);
  });

  it('let a ** that shares its segment cross segments too, as in Sentry (**/generated/**.js)', () => {
    expect(path('**/generated/**.js', '/x/generated/a/b.js')).toBe(true);
    expect(path('**/generated/**.js', '/x/generated/b.js')).toBe(true);
    expect(path('**/generated/**.js', '/x/generated/b.ts')).toBe(false);
    expect(path('**.gen.c', '/src/foo/bar.gen.c')).toBe(true);
    expect(path('lib**', 'lib/x/y.js')).toBe(true);
    expect(path('lib**', 'src/lib/y.js')).toBe(false);
    expect(path('/a**b/c', '/a/x/b/c')).toBe(true);
    expect(path('/a**b/c', '/ab/c')).toBe(true);
    expect(path('/a**b/c', '/a/x/c')).toBe(false);
  });

  it('let the / around a ** match nothing', () => {
    expect(path('a/**/b', 'a/b')).toBe(true);
    expect(path('**/b/**', 'b')).toBe(true);
    expect(path('a/**/b', 'ab')).toBe(false);
  });

  it('decide a pattern without wildcards by equality (after normalization)', () => {
    expect(path('/App/Main.js', '/APP/main.js')).toBe(true);
    expect(path('/app/main.js', '/app/main.jsx')).toBe(false);
    expect(path('main.js', '/app/main.js')).toBe(true);
  });

  it('take any number of such ** (matching is linear in the value whatever the pattern)', () => {
    expect(path('a**b**c**d**', 'a/x/b/c/y/d/z')).toBe(true);
    expect(path('a**b**c**d**', 'a/x/b/y/d/z')).toBe(false);
  });

  it('let consecutive whole-segment ** match nothing', () => {
    expect(path('a/**/**/b', 'a/b')).toBe(true);
    expect(path('a/**/**', 'a/x/y')).toBe(true);
  });

  it('are case-insensitive and read \\ as /', () => {
    expect(path('**/Vendor/*.JS', 'C:\\App\\VENDOR\\x.js')).toBe(true);
    expect(path('c:\\app\\**', 'C:/App/main.js')).toBe(true);
  });

  it('match a pattern without / against the file name only', () => {
    expect(path('*.min.js', '/static/js/app.min.js')).toBe(true);
    expect(path('*.min.js', '/static/app.min.js/index.js')).toBe(false);
    expect(path('vendor', '/app/vendor/x.js')).toBe(false);
    expect(path('jquery*', 'https://code.jquery.com/jquery-3.7.1.min.js')).toBe(true);
  });

  it('match a relative path as if it started with / (Sentry: /src/** matches src/app.js)', () => {
    expect(path('/src/**', 'src/app.js')).toBe(true);
    expect(path('/src/**', 'lib/src/app.js')).toBe(false);
    expect(path('**/vendor/**', 'vendor/x.js')).toBe(true);
  });

  it('see a dotfile directory like any other (pnpm)', () => {
    expect(path('**/node_modules/**', '/app/node_modules/.pnpm/react@18/node_modules/react/index.js')).toBe(true);
  });

  it('take [*] as a literal star; nothing else escapes', () => {
    expect(path('/a/[*].js', '/a/*.js')).toBe(true);
    expect(path('/a/[*].js', '/a/b.js')).toBe(false);
  });
});

describe('normalizePath', () => {
  it('drops a URL origin, query and fragment', () => {
    expect(normalizePath('https://cdn.example.com:8443/static/js/main.4f3a.js?v=3#x')).toBe('/static/js/main.4f3a.js');
    expect(normalizePath('webpack:///./src/App.tsx')).toBe('/src/app.tsx');
    expect(normalizePath('webpack-internal:///./node_modules/react/index.js')).toBe('/node_modules/react/index.js');
    expect(normalizePath('app:///main.jsbundle')).toBe('/main.jsbundle');
  });

  it('keeps ? and # in a path that is not a URL', () => {
    expect(normalizePath('/srv/C#/a?b.cs')).toBe('/srv/c#/a?b.cs');
  });

  it('resolves . and .. and collapses //, dropping a leading .. it cannot resolve', () => {
    expect(normalizePath('../../node_modules/react/index.js')).toBe('node_modules/react/index.js');
    expect(normalizePath('./src//a/../b.js')).toBe('src/b.js');
    expect(normalizePath('/app/./lib/../x.js')).toBe('/app/x.js');
  });

  it('lowercases and turns \\ into /', () => {
    expect(normalizePath('C:\\Users\\Dev\\App.cs')).toBe('c:/users/dev/app.cs');
  });
});
