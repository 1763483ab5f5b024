// Go function names, version 2: closures are numbered in source order (`handle.func1`), so a new
// closure earlier in a function renumbers the others; the Go runtime's own frames vary with the
// Go version and the kind of panic.

const CLOSURE_NUMBER = /\.(func|gowrap)\d+(?:\.\d+)*/g;
const RUNTIME = /^runtime\./;

/** `main.(*Server).handle.func1` and `….func3.2` -> `main.(*Server).handle.func`. */
export function normalizeGoFunction(name: string): string {
  return name.trim().replace(CLOSURE_NUMBER, '.$1');
}

export function isGoRuntimeFunction(name: string): boolean {
  return RUNTIME.test(name.trim());
}
