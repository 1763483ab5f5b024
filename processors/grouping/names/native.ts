// Native (C, C++, Objective-C, Rust) function names, version 2: what a symbolizer prints varies
// with the debug information and the toolchain — parameter lists, return types, calling
// conventions, qualifiers, per-build lambda names — while the function stays the same.
import { memoize } from '../memo.js';

/** `+ 0x1a` at the end; the look-behind starts a match only where a run of spaces starts, so a long run is read once. */
const OFFSET = /(?<!\s)\s*\+\s*(?:0x[0-9a-f]+|\d+)$/i;
/** Qualifiers after a parameter list (`const&&`, `volatile noexcept`): removed by a scan from the end, not a regex, whose alternation of `&&` and `&` backtracked exponentially. */
const QUALIFIERS = ['const', 'volatile', 'noexcept', 'override', '&'];
const SPACE = /\s/;
const CALLING_CONVENTION = /\b__(?:cdecl|stdcall|thiscall|fastcall|vectorcall|clrcall)\b\s*/g;
/** Every spelling of a lambda: MSVC `<lambda_39a4…>`, `<lambda_1>`, Itanium `{lambda(int)#1}`, ours `{lambda}`. */
const LAMBDA = /<lambda_[0-9a-f]+>|<lambda_\d+>|<lambda>|\{lambda\([^)]*\)#\d+\}|\{lambda\}/g;
const ANONYMOUS_NAMESPACE = /`anonymous namespace'|\(anonymous namespace\)|\{anonymous\}/g;
/** MSVC's block scopes inside a function: `loadAsync::__l2::<lambda>`. */
const MSVC_BLOCK_SCOPE = /::__l\d+(?=::)/g;
/** Versioned inline namespaces: a library's ABI version is not the bug (`json_abi_v3_11_3`, libc++'s `__1`, `__cxx11`). */
const VERSIONED_NAMESPACE = /(?<=[A-Za-z])_v\d+(?:_\d+)*(?=::)|::__(?:1|cxx11)(?=::)/g;
/** Rust symbols end in a hash: `myapp::render::h1a2b3c4d5e6f7a8b`. */
const RUST_HASH = /::h[0-9a-f]{16}$/;
/** Markers that stand for one name: kept through the removal of `(…)` and `<…>`. */
const LAMBDA_MARK = '\u0001lambda\u0001';
const ANONYMOUS_MARK = '\u0001anonymous\u0001';

/** `text` without the qualifiers that end it, each with the spaces before it (`f() const &&` -> `f()`). */
function withoutTrailingQualifiers(text: string): string {
  let end = text.length;
  for (;;) {
    const qualifier = QUALIFIERS.find((q) => text.endsWith(q, end));
    if (qualifier === undefined) return text.slice(0, end);
    end -= qualifier.length;
    while (end > 0 && SPACE.test(text[end - 1])) end--;
  }
}

/** `text` without its balanced `open…close` groups (parameter lists, template arguments). */
function withoutGroups(text: string, open: string, close: string): string {
  let out = '';
  let depth = 0;
  for (const c of text) {
    if (c === open) depth++;
    else if (c === close && depth > 0) depth--;
    else if (depth === 0) out += c;
  }
  return out;
}

/** The last space outside `<…>` and `(…)`: what is before it is a return type. */
function lastTopLevelSpace(text: string): number {
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === '>' || c === ')') depth++;
    else if (c === '<' || c === '(') depth--;
    else if (c === ' ' && depth === 0) return i;
  }
  return -1;
}

function normalizeNow(name: string): string {
  let fn = name.trim().replace(OFFSET, '');
  fn = withoutTrailingQualifiers(fn.replace(CALLING_CONVENTION, ''));
  fn = fn
    .replace(LAMBDA, LAMBDA_MARK)
    .replace(ANONYMOUS_NAMESPACE, ANONYMOUS_MARK)
    .replace(MSVC_BLOCK_SCOPE, '')
    .replace(VERSIONED_NAMESPACE, '')
    .replace(RUST_HASH, '');
  // Operators keep their spelling (`operator()`, `operator<<`): only what precedes `operator` is reduced.
  const operator = fn.indexOf('operator');
  const head = operator >= 0 ? fn.slice(0, operator) : fn;
  const tail = operator >= 0 ? fn.slice(operator).replace(/^(operator\s*(?:\(\)|\[\]|[^\s(]+)).*$/s, '$1') : '';
  let reduced = head;
  const space = lastTopLevelSpace(reduced);
  if (space >= 0 && operator < 0) reduced = reduced.slice(space + 1);
  // Parameter lists anywhere (`loadAsync(std::string const&)::{lambda}`) and template arguments.
  reduced = withoutGroups(withoutGroups(reduced, '(', ')'), '<', '>');
  fn = withoutTrailingQualifiers(reduced + tail).trim();
  return fn.replaceAll(LAMBDA_MARK, '{lambda}').replaceAll(ANONYMOUS_MARK, '(anonymous)');
}

/**
 * `SceneGraph::update(double)`, `void __cdecl SceneGraph::update(double) const` -> `SceneGraph::update`;
 * `` `anonymous namespace'::`<lambda_39a4…>` `` and `(anonymous namespace)::{lambda()#1}` -> `(anonymous)::{lambda}`;
 * `Pool<Texture, 64ul>::acquire` -> `Pool::acquire`.
 */
export const normalizeNativeFunction: (name: string) => string = memoize(normalizeNow);

/** The C library, the C++ runtime, the loader and the OS: which of their frames a crash shows depends on the system, not the bug. */
const SYSTEM_LIBRARY =
  /^(?:libc|libpthread|libstdc\+\+|libc\+\+(?:abi)?|libgcc_s|ld-linux[\w-]*|ld-musl[\w-]*|libm|libdl|librt|libsystem_[\w]+|libdyld|dyld|libobjc[\w.]*)(?:[.-][\w.]*)?$|^(?:ntdll|kernel32|kernelbase|ucrtbase|msvcrt|vcruntime\d*|msvcp\d*)\.dll$/i;
/** Process and thread entry points of the C runtimes and OSes. */
const ENTRY_POINTS = new Set([
  '_start',
  'start',
  '__libc_start_main',
  '__libc_start_main_impl',
  '__libc_start_call_main',
  '__scrt_common_main',
  '__scrt_common_main_seh',
  'mainCRTStartup',
  'wmainCRTStartup',
  'WinMainCRTStartup',
  'wWinMainCRTStartup',
  'invoke_main',
  'RtlUserThreadStart',
  'BaseThreadInitThunk',
  'start_thread',
  'thread_start',
  'clone',
  'clone3',
  '__clone',
  '__clone3',
  'main',
  'wmain',
  'WinMain',
  'wWinMain',
]);
const BASENAME = /^.*[/\\]/s;

/** A frame of the system's libraries or a runtime entry point (the standard library's templates count too). */
export function isSystemNativeFrame(module: string | undefined, normalizedFunction: string | undefined): boolean {
  if (module !== undefined && SYSTEM_LIBRARY.test(module.replace(BASENAME, ''))) return true;
  if (normalizedFunction === undefined) return false;
  return ENTRY_POINTS.has(normalizedFunction) || /^(?:std|__gnu_cxx|__cxxabiv1|__cxx)::/.test(normalizedFunction);
}
