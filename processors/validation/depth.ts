// How deep a parsed body nests, measured without recursion (the point is to refuse bodies that
// would overflow the stack of whatever walks them later). Only objects and arrays are visited, and
// the path is spelled out only for the node that fails: this runs on every event, so the pass that
// accepts allocates nothing per node (a `Visit` and an `Object.keys` array per nested value were
// ~7 KB of garbage per event, collected by the scavenger's helper threads); only a body that fails
// is walked again to find the path.

interface Visit {
  node: object;
  depth: number;
  parent: Visit | undefined;
  key: string | number;
}

/** The path of the first node nested deeper than `max`, or undefined when the body is within it. */
export function tooDeep(value: unknown, max: number): string | undefined {
  if (typeof value !== 'object' || value === null || withinDepth(value, max)) return undefined;
  return firstTooDeep(value, max);
}

/** Whether no object or array in `value` is nested `max` levels deep: a stack of nodes and one of their depths, nothing else. */
function withinDepth(value: object, max: number): boolean {
  const nodes: object[] = [value];
  const depths: number[] = [0];
  while (nodes.length) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth >= max) return false;
    const childDepth = depth + 1;
    if (Array.isArray(node)) {
      const items: unknown[] = node;
      for (let i = 0; i < items.length; i++) {
        const child = items[i];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(childDepth);
        }
      }
    } else {
      const entries = node as Record<string, unknown>;
      // for-in reads the object's enum cache where Object.keys copies it; parsed JSON inherits no enumerable keys.
      for (const key in entries) {
        const child = entries[key];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(childDepth);
        }
      }
    }
  }
  return true;
}

/** The path of the first node (depth first, in key order) nested `max` levels deep. */
function firstTooDeep(value: object, max: number): string | undefined {
  const stack: Visit[] = [{ node: value, depth: 0, parent: undefined, key: '' }];
  while (stack.length) {
    const visit = stack.pop() as Visit;
    if (visit.depth >= max) return pathOf(visit);
    const depth = visit.depth + 1;
    if (Array.isArray(visit.node)) {
      const items: unknown[] = visit.node;
      for (let i = items.length - 1; i >= 0; i--) {
        const child = items[i];
        if (typeof child === 'object' && child !== null) stack.push({ node: child, depth, parent: visit, key: i });
      }
    } else {
      const entries = visit.node as Record<string, unknown>;
      const keys = Object.keys(entries);
      for (let i = keys.length - 1; i >= 0; i--) {
        const child = entries[keys[i]];
        if (typeof child === 'object' && child !== null) stack.push({ node: child, depth, parent: visit, key: keys[i] });
      }
    }
  }
  return undefined;
}

function pathOf(visit: Visit): string {
  const keys: Array<string | number> = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.unshift(at.key);
  let path = '';
  for (const key of keys) path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  return path;
}
