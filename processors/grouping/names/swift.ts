// Swift names, version 3 (`cocoa` frames): with a dSYM the symbolicator writes demangled names
// (`CheckoutViewController.applyCoupon(code:)`, `closure #1 in CartViewController.viewDidLoad()`),
// without one the mangled symbol (`$s4Shop22CheckoutViewControllerC11applyCoupon4codeySS_tF`);
// the compiler's thunks (reabstraction, `@objc` entry points, partial applications) come and go
// with the optimizer. Both spellings become `Type.method`, a closure `Type.method{closure}` (closures
// are numbered in source order), and thunks are dropped. Objective-C and C names are left alone.
import { memoize } from '../memo.js';

const LONGEST = 1024;
const DEMANGLED_THUNK = /^(?:@objc |thunk for |reabstraction thunk|partial apply for |merged |protocol witness for |dispatch thunk of )/;
const CLOSURE = /^(?:implicit )?closure #\d{1,6} (?:\([^)]{0,200}\) )?in /;
const MANGLED = /^_?\$[sS]|^_T0/;
/** Thunk suffixes of the mangling: `@objc` (To), reabstraction (TR, Tr), partial apply (TA), dispatch (Tj), witness (TW). */
const MANGLED_THUNK = /T[oRrAjW]_?$/;
/** A type's kind after its name: class, struct, enum, protocol. */
const TYPE_KIND = new Set(['C', 'V', 'O', 'P']);

/** `$s4Shop22CheckoutViewControllerC11applyCoupon4codeySS_tF` -> `CheckoutViewController.applyCoupon`; undefined when it is not read. */
function demangle(symbol: string): string | undefined {
  let i = symbol.startsWith('_') ? 2 : 1;
  i += symbol[i] === 'T' ? 2 : 1;
  let type: string | undefined;
  let last: string | undefined;
  let method: string | undefined;
  while (i < symbol.length && method === undefined) {
    const c = symbol[i];
    if (c >= '0' && c <= '9') {
      let n = 0;
      while (i < symbol.length && symbol[i] >= '0' && symbol[i] <= '9' && n < 10_000) n = n * 10 + Number(symbol[i++]);
      const name = symbol.slice(i, i + n);
      i += n;
      if (type !== undefined) method = name;
      else last = name;
    } else if (TYPE_KIND.has(c) && last !== undefined && type === undefined) {
      type = last;
      i++;
    } else break;
  }
  if (type === undefined || method === undefined) return undefined;
  // `fU_`, `fU0_`: an explicit closure inside the method.
  return `${type}.${method}${symbol.includes('fU', i) ? '{closure}' : ''}`;
}

/** `Shop.CheckoutViewController.applyCoupon(code:)` -> `CheckoutViewController.applyCoupon`. */
function typeAndMethod(name: string): string {
  const paren = name.indexOf('(');
  const head = paren >= 0 ? name.slice(0, paren) : name;
  const parts = head.split('.');
  return parts.length > 2 ? parts.slice(-2).join('.') : head;
}

/** The name as grouping compares it; null for a compiler thunk; undefined for a name that is not Swift's (the native rules apply). */
function normalizeSwiftFunctionNow(name: string): string | null | undefined {
  const fn = name.trim().slice(0, LONGEST);
  if (MANGLED.test(fn)) {
    if (MANGLED_THUNK.test(fn)) return null;
    return demangle(fn) ?? fn;
  }
  if (DEMANGLED_THUNK.test(fn)) return null;
  const closure = CLOSURE.exec(fn);
  if (closure) return `${typeAndMethod(fn.slice(closure[0].length))}{closure}`;
  // Objective-C (`-[UIControl sendAction:to:forEvent:]`) and C names have no dotted Swift path.
  if (fn.startsWith('-[') || fn.startsWith('+[') || !fn.includes('.')) return undefined;
  return typeAndMethod(fn);
}

export const normalizeSwiftFunction: (name: string) => string | null | undefined = memoize(normalizeSwiftFunctionNow);
