// The order of a trace's waterfall: each span right under its parent (depth first), siblings by
// start time. A span whose parent is not in the trace (not sent, or cut by the page's limit) is a
// root of its own; a cycle of parent ids (hostile input) cannot loop, as each span is placed once.

export interface TreeSpan {
  span_id: string;
  parent_span_id: string;
  start_time_unix_nano: string;
}

export function spanTree<S extends TreeSpan>(spans: readonly S[]): Array<{ span: S; depth: number }> {
  const byStart = [...spans].sort((a, b) => compareStart(a, b) || (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0));
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map<string, S[]>();
  const roots: S[] = [];
  for (const span of byStart) {
    if (span.parent_span_id && span.parent_span_id !== span.span_id && ids.has(span.parent_span_id)) {
      const siblings = children.get(span.parent_span_id);
      if (siblings) siblings.push(span);
      else children.set(span.parent_span_id, [span]);
    } else roots.push(span);
  }
  const out: Array<{ span: S; depth: number }> = [];
  const placed = new Set<S>();
  const visit = (start: S) => {
    const stack: Array<{ span: S; depth: number }> = [{ span: start, depth: 0 }];
    while (stack.length) {
      const { span, depth } = stack.pop() as { span: S; depth: number };
      if (placed.has(span)) continue;
      placed.add(span);
      out.push({ span, depth });
      const kids = children.get(span.span_id) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], depth: depth + 1 });
    }
  };
  for (const root of roots) visit(root);
  // Spans only reachable through a cycle: placed in start order after the rest.
  for (const span of byStart) visit(span);
  return out;
}

function compareStart(a: TreeSpan, b: TreeSpan): number {
  const x = BigInt(a.start_time_unix_nano);
  const y = BigInt(b.start_time_unix_nano);
  return x < y ? -1 : x > y ? 1 : 0;
}
