// Rust symbols, version 3, before the native rules (parameter lists, generics, the `::h…` hash):
// a trait impl is `<Type as Trait>::method`, which would otherwise lose its type with the generic
// arguments; a closure is `{{closure}}` with legacy mangling and `{closure#0}` with v0; the panic
// machinery of core and alloc changes with the toolchain.
import { memoize } from '../memo.js';

const LONGEST = 1024;
const CLOSURE = /\{\{closure\}\}|\{closure#\d{1,6}\}/g;
/** The panic runtime's entry points. */
const PANIC_RUNTIME = /^(?:rust_begin_unwind|rust_panic|__rust_\w{1,60})$/;
/** Where the toolchain's own sources are: `/rustc/<commit>/library/core/src/option.rs`. */
const TOOLCHAIN_SOURCE = /^\/rustc\/[0-9a-f]{7,64}\//;

/** `<ledger::api::PostEntry as axum::Handler<…>>::call::{{closure}}` -> `ledger::api::PostEntry::call::{closure}`. */
function prepareRustSymbolNow(name: string): string {
  let fn = name.trim().slice(0, LONGEST).replace(CLOSURE, '{closure}');
  if (fn.startsWith('<')) {
    let depth = 0;
    let as = -1;
    for (let i = 0; i < fn.length; i++) {
      const c = fn[i];
      if (c === '<') depth++;
      else if (c === '>') {
        depth--;
        if (depth === 0) {
          if (as > 0) fn = fn.slice(1, as) + fn.slice(i + 1);
          break;
        }
      } else if (depth === 1 && as < 0 && fn.startsWith(' as ', i)) as = i;
    }
  }
  return fn;
}

/** A frame of core, alloc or std (by the toolchain's path, which changes with it) or of the panic runtime. */
export function isRustRuntimeFrame(file: string | undefined, normalized: string | undefined): boolean {
  if (file !== undefined && TOOLCHAIN_SOURCE.test(file)) return true;
  return normalized !== undefined && PANIC_RUNTIME.test(normalized);
}

export const prepareRustSymbol: (name: string) => string = memoize(prepareRustSymbolNow);
