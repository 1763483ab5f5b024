// How deep a parsed body nests, measured without recursion (the point is to refuse bodies that
// would overflow the stack of whatever walks them later).

/** The path of the first node nested deeper than `max`, or undefined when the body is within it. */
export function tooDeep(value: unknown, max: number): string | undefined {
  const stack: Array<{ node: unknown; depth: number; path: string }> = [{ node: value, depth: 0, path: '' }];
  while (stack.length) {
    const { node, depth, path } = stack.pop() as { node: unknown; depth: number; path: string };
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return path;
    if (Array.isArray(node)) node.forEach((child, i) => stack.push({ node: child, depth: depth + 1, path: `${path}[${i}]` }));
    else for (const [key, child] of Object.entries(node)) stack.push({ node: child, depth: depth + 1, path: path ? `${path}.${key}` : key });
  }
  return undefined;
}
