// One frame's grouping component, version 3: `<location>:<function>` with each language's names
// normalized, or nothing for a frame that says nothing about the code (a built-in, a runtime or
// system frame that comes and goes with the engine, the OS or their versions, a page URL without
// a function, the callers V8 and SpiderMonkey add after an `await`, a compiler's thunk).
import type { StackFrame } from '../../src/records/event.js';
import type { Family } from './family.js';
import { ANONYMOUS, normalizeFunction } from './legacy/normalize-v1.js';
import { isDartRuntimeFrame } from './names/dart.js';
import { isDotnetRuntimeType, normalizeDotnetFrame } from './names/dotnet.js';
import { isElixirServerModule, normalizeElixirFunction } from './names/elixir.js';
import { normalizeFilename } from './names/files.js';
import { isGoRuntimeFunction, normalizeGoFunction } from './names/go.js';
import { isAsyncFrame, isPageUrl, isRuntimeFile, javaScriptLocation, normalizeJavaScriptFunction } from './names/javascript.js';
import { isRuntimeJvmFrameV3, normalizeJvmClass, normalizeJvmFrameV3 } from './names/jvm.js';
import { isSystemNativeFrame, normalizeNativeFunction } from './names/native.js';
import { normalizePhpFunction } from './names/php.js';
import { normalizePythonFunction } from './names/python.js';
import { BUNDLE_LOCATION, isReactNativeBridgeFunction, reactNativeFile } from './names/react-native.js';
import { normalizeRubyFunction } from './names/ruby.js';
import { isRustRuntimeFrame, prepareRustSymbol } from './names/rust.js';
import { normalizeSwiftFunction } from './names/swift.js';

/** Python ≥ 3.12 inlines comprehensions: their frames come and go with the interpreter's version. */
const PYTHON_COMPREHENSIONS = new Set(['<listcomp>', '<dictcomp>', '<setcomp>']);
/** Where inline scripts and event-handler attributes run: any page of the site. */
const PAGE = '<page>';

/** Languages within a family (or outside the named ones) that have rules of their own: by the SDK's platform. */
export type Dialect = 'ruby' | 'php' | 'dotnet' | 'dart' | 'elixir' | 'swift' | undefined;
const DIALECTS: Record<string, Dialect> = {
  ruby: 'ruby',
  php: 'php',
  csharp: 'dotnet',
  dart: 'dart',
  flutter: 'dart',
  elixir: 'elixir',
  cocoa: 'swift',
  swift: 'swift',
};

/** The dialect of a platform name. */
export function dialectOfPlatform(platform: string | undefined): Dialect {
  if (platform === undefined) return undefined;
  const key = Object.hasOwn(DIALECTS, platform) ? platform : platform.toLowerCase();
  return Object.hasOwn(DIALECTS, key) ? DIALECTS[key] : undefined;
}

function clean(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === '' ? undefined : trimmed;
}

function normalizedFunction(name: string, family: Family, dialect: Dialect): string | undefined {
  switch (dialect) {
    case 'ruby':
      return normalizeRubyFunction(name);
    case 'php':
      return normalizePhpFunction(name);
    case 'elixir':
      return normalizeElixirFunction(name);
    default:
  }
  switch (family) {
    case 'javascript':
      return normalizeJavaScriptFunction(name);
    case 'native':
      return normalizeNativeFunction(prepareRustSymbol(name));
    case 'go':
      return normalizeGoFunction(name);
    case 'python':
      return normalizePythonFunction(name);
    default:
      return normalizeFunction(name);
  }
}

/** The component of a frame, or undefined when the frame carries no information for grouping. */
export function frameComponentV3(frame: StackFrame, family: Family, dialect: Dialect): string | undefined {
  const rawFunction = clean(frame.function);
  const module = clean(frame.module);
  let file = clean(frame.filename) ?? clean(frame.abs_path);

  if (dialect === 'dotnet') {
    if (module !== undefined && isDotnetRuntimeType(module)) return undefined;
    const { type, method } = normalizeDotnetFrame(module, rawFunction);
    const location = type ?? (file === undefined ? undefined : clean(normalizeFilename(file)));
    if (location === undefined && method === undefined) return undefined;
    return `${location ?? ANONYMOUS}:${method ?? ANONYMOUS}`;
  }
  if (dialect === 'elixir' && module !== undefined && isElixirServerModule(module)) return undefined;
  if (dialect === 'dart' && (isDartRuntimeFrame(clean(frame.abs_path)) || isDartRuntimeFrame(file))) return undefined;
  if (family === 'native' && isRustRuntimeFrame(clean(frame.abs_path) ?? file, undefined)) return undefined;
  if (dialect === 'swift' && family === 'native' && rawFunction !== undefined) {
    const swift = normalizeSwiftFunction(rawFunction);
    if (swift === null) return undefined;
    if (swift !== undefined) return swift;
  }

  let jvmClass = family === 'jvm' && module !== undefined ? normalizeJvmClass(module) : undefined;
  if (jvmClass !== undefined && isRuntimeJvmFrameV3(jvmClass)) return undefined;
  if (family === 'go' && rawFunction !== undefined && isGoRuntimeFunction(rawFunction)) return undefined;
  if (family === 'python' && rawFunction !== undefined && PYTHON_COMPREHENSIONS.has(rawFunction)) return undefined;
  if (family === 'javascript' && rawFunction !== undefined && isAsyncFrame(rawFunction)) return undefined;
  let bundle = false;
  if (family === 'javascript' && file !== undefined) {
    const rn = reactNativeFile(file);
    if (rn.kind === 'internal') return undefined;
    if (rn.kind === 'bundle') bundle = true;
    else file = rn.file;
    if (rawFunction !== undefined && isReactNativeBridgeFunction(rawFunction) && (bundle || rn.kind === 'bridge')) return undefined;
  }
  if (module === undefined && file !== undefined && isRuntimeFile(file)) return undefined;

  let fn: string | undefined;
  if (family === 'jvm' && rawFunction !== undefined) {
    const jvm = normalizeJvmFrameV3(module, rawFunction);
    jvmClass = jvm.cls;
    fn = jvm.method;
  } else fn = rawFunction === undefined ? undefined : normalizedFunction(rawFunction, family, dialect);
  const anonymous = fn === undefined || fn === ANONYMOUS;
  if (family === 'native' && (isSystemNativeFrame(module, fn) || isRustRuntimeFrame(undefined, fn))) return undefined;
  // A native function is fully qualified: the library it is in is named differently on each OS (atlas.dll, libatlas.so).
  if (family === 'native' && !anonymous) return `${fn}`;

  let location: string | undefined;
  if (module !== undefined) location = jvmClass ?? module;
  else if (file !== undefined && family === 'javascript') {
    if (bundle) location = BUNDLE_LOCATION;
    else if (isPageUrl(file)) {
      if (anonymous) return undefined;
      location = PAGE;
    } else location = clean(javaScriptLocation(file));
  } else if (file !== undefined) location = clean(normalizeFilename(file));
  if (location === undefined && anonymous) return undefined;
  return `${location ?? ANONYMOUS}:${fn ?? ANONYMOUS}`;
}
