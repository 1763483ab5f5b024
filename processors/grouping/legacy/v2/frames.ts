// One frame's grouping component, version 2: `<location>:<function>` with each language's names
// normalized, or nothing for a frame that says nothing about the code (a built-in, a runtime or
// system frame that comes and goes with the engine, the OS or their versions, a page URL without
// a function, the callers V8 and SpiderMonkey add after an `await`).
import type { StackFrame } from '../../../../src/records/event.js';
import type { Family } from '../../family.js';
import { ANONYMOUS, normalizeFunction } from '../normalize-v1.js';
import { normalizeFilename } from '../../names/files.js';
import { isGoRuntimeFunction, normalizeGoFunction } from '../../names/go.js';
import { isAsyncFrame, isPageUrl, isRuntimeFile, javaScriptLocation, normalizeJavaScriptFunction } from './names/javascript.js';
import { isRuntimeJvmFrame, normalizeJvmClass, normalizeJvmMethod } from './names/jvm.js';
import { isSystemNativeFrame, normalizeNativeFunction } from '../../names/native.js';
import { normalizePythonFunction } from '../../names/python.js';

/** Python ≥ 3.12 inlines comprehensions: their frames come and go with the interpreter's version. */
const PYTHON_COMPREHENSIONS = new Set(['<listcomp>', '<dictcomp>', '<setcomp>']);
/** Where inline scripts and event-handler attributes run: any page of the site. */
const PAGE = '<page>';

function clean(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === '' ? undefined : trimmed;
}

function normalizedFunction(name: string, family: Family): string | undefined {
  switch (family) {
    case 'javascript':
      return normalizeJavaScriptFunction(name);
    case 'jvm':
      return normalizeJvmMethod(name);
    case 'native':
      return normalizeNativeFunction(name);
    case 'go':
      return normalizeGoFunction(name);
    case 'python':
      return normalizePythonFunction(name);
    default:
      return normalizeFunction(name);
  }
}

/** The component of a frame, or undefined when the frame carries no information for grouping. */
export function frameComponentV2(frame: StackFrame, family: Family): string | undefined {
  const rawFunction = clean(frame.function);
  const module = clean(frame.module);
  const file = clean(frame.filename) ?? clean(frame.abs_path);

  const jvmClass = family === 'jvm' && module !== undefined ? normalizeJvmClass(module) : undefined;
  if (jvmClass !== undefined && isRuntimeJvmFrame(jvmClass)) return undefined;
  if (family === 'go' && rawFunction !== undefined && isGoRuntimeFunction(rawFunction)) return undefined;
  if (family === 'python' && rawFunction !== undefined && PYTHON_COMPREHENSIONS.has(rawFunction)) return undefined;
  if (family === 'javascript' && rawFunction !== undefined && isAsyncFrame(rawFunction)) return undefined;
  if (module === undefined && file !== undefined && isRuntimeFile(file)) return undefined;

  const fn = rawFunction === undefined ? undefined : normalizedFunction(rawFunction, family);
  const anonymous = fn === undefined || fn === ANONYMOUS;
  if (family === 'native' && isSystemNativeFrame(module, fn)) return undefined;
  // A native function is fully qualified: the library it is in is named differently on each OS (atlas.dll, libatlas.so).
  if (family === 'native' && !anonymous) return `${fn}`;

  let location: string | undefined;
  if (module !== undefined) location = jvmClass ?? module;
  else if (file !== undefined && family === 'javascript') {
    if (isPageUrl(file)) {
      if (anonymous) return undefined;
      location = PAGE;
    } else location = clean(javaScriptLocation(file));
  } else if (file !== undefined) location = clean(normalizeFilename(file));
  if (location === undefined && anonymous) return undefined;
  return `${location ?? ANONYMOUS}:${fn ?? ANONYMOUS}`;
}
