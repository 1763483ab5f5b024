// Native (C, C++, Objective-C, Rust) function names, version 2: what a symbolizer prints varies
// with the debug information and the toolchain — parameter lists, return types, calling
// conventions, qualifiers, per-build lambda names — while the function stays the same.
import { memoize } from '../memo.js';

const OFFSET = /\s*\+\s*(?:0x[0-9a-f]+|\d+)$/i;
const TRAILING_QUALIFIERS = /(?:\s*(?:const|volatile|noexcept|override|&&|&))+$/;
const CALLING_CONVENTION = /\b__(?:cdecl|stdcall|thiscall|fastcall|vectorcall|clrcall)\b\s*/g;
const MSVC_LAMBDA = /<lambda_[0-9a-f]+>|<lambda_\d+>/g;
const ITANIUM_LAMBDA = /\{lambda\([^)]*\)#\d+\}/g;
const ANONYMOUS_NAMESPACE = /`anonymous namespace'|\(anonymous namespace\)|\{anonymous\}/g;
/** Rust symbols end in a hash: `myapp::render::h1a2b3c4d5e6f7a8b`. */
const RUST_HASH = /::h[0-9a-f]{16}$/;

/** The index of the `(` that opens the parenthesized group ending at `end`, or -1. */
function openingParen(text: string, end: number): number {
  let depth = 0;
  for (let i = end; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(' && --depth === 0) return i;
  }
  return -1;
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
  let fn = name.trim().replace(OFFSET, '').replace(CALLING_CONVENTION, '');
  fn = fn.replace(TRAILING_QUALIFIERS, '');
  // Parameter lists: `update(double)`, and the lambda call operator's `operator()(int)`.
  if (fn.endsWith(')')) {
    const open = openingParen(fn, fn.length - 1);
    if (open > 0 && !fn.slice(0, open).endsWith('operator')) fn = fn.slice(0, open);
  }
  fn = fn.replace(MSVC_LAMBDA, '<lambda>').replace(ITANIUM_LAMBDA, '{lambda}').replace(ANONYMOUS_NAMESPACE, '(anonymous)');
  fn = fn.replace(RUST_HASH, '');
  if (!fn.includes('operator')) {
    const space = lastTopLevelSpace(fn);
    if (space >= 0) fn = fn.slice(space + 1);
  }
  return fn.replace(TRAILING_QUALIFIERS, '').trim();
}

/**
 * `SceneGraph::update(double)`, `void __cdecl SceneGraph::update(double) const` -> `SceneGraph::update`;
 * `` `anonymous namespace'::`<lambda_39a4…>` `` -> `(anonymous)::<lambda>`.
 */
export const normalizeNativeFunction: (name: string) => string = memoize(normalizeNow);
