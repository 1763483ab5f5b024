// Python function names, version 2: Python 3.11 and later report qualified names
// (`Renderer.render_receipt`, `build_tracer.<locals>.trace_task`), earlier versions the bare name.

/** `Renderer.render_receipt` and `render_receipt` -> `render_receipt`. */
export function normalizePythonFunction(name: string): string {
  const trimmed = name.trim();
  const dot = trimmed.lastIndexOf('.');
  return dot >= 0 && dot < trimmed.length - 1 ? trimmed.slice(dot + 1) : trimmed;
}
