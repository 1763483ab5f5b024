// Go function names, version 2: closures are numbered in source order (`handle.func1`), so a new
// closure earlier in a function renumbers the others; the Go runtime's own frames vary with the
// Go version and the kind of panic.

/** `func1`, `func1.2`, and Go 1.22's `gowrap1` for what a `go` statement starts (a `func1` before). */
const CLOSURE_NUMBER = /\.(?:func|gowrap)\d+(?:\.\d+)*/g;
/** The runtime's frames (`runtime.gopanic`, `runtime/debug.Stack`) and the builtin `panic` Go ≥ 1.21 shows. */
const RUNTIME = /^(?:runtime[./]|panic$)/;

/** `main.(*Server).handle.func1` and `….func3.2` -> `main.(*Server).handle.func`. */
export function normalizeGoFunction(name: string): string {
  return name.trim().replace(CLOSURE_NUMBER, '.func');
}

export function isGoRuntimeFunction(name: string): boolean {
  return RUNTIME.test(name.trim());
}
