// A small JSX runtime for server rendering: `h` builds nodes, `renderToString` writes HTML with
// every text and attribute value escaped; there is no way to insert raw HTML. (Preact's renderer
// would do the same, but its JSX types pull the DOM library into the whole program's types.)

/** A rendered node, a component, text, or nothing. */
export type Child = JsxNode | string | number | bigint | boolean | null | undefined | Child[];
export type ComponentChildren = Child;
export type Component<P = Record<string, unknown>> = (props: P) => Child;

export interface JsxNode {
  readonly type: string | Component<never>;
  readonly props: Record<string, unknown> & { children?: Child };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    type Element = JsxNode;
    interface IntrinsicElements {
      [element: string]: Record<string, unknown>;
    }
    interface ElementChildrenAttribute {
      children: unknown;
    }
  }
}

/** `<>…</>`: its children, nothing around them. */
export function Fragment(props: { children?: Child }): Child {
  return props.children;
}

export function h(type: JsxNode['type'], props: Record<string, unknown> | null, ...children: Child[]): JsxNode {
  const all = { ...(props ?? {}) };
  if (children.length) all.children = children.length === 1 ? children[0] : children;
  return { type, props: all };
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const NAME = /^[a-zA-Z][a-zA-Z0-9:-]*$/;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => TEXT_ESCAPES[c]);
}

function write(child: Child, out: string[]): void {
  if (child === null || child === undefined || child === false || child === true) return;
  if (Array.isArray(child)) {
    for (const c of child) write(c, out);
    return;
  }
  if (typeof child !== 'object') {
    out.push(escapeHtml(String(child)));
    return;
  }
  const { type, props } = child;
  if (typeof type === 'function') return write((type as Component)(props), out);
  if (typeof type !== 'string' || !NAME.test(type)) throw new Error(`not an element name: ${String(type)}`);
  out.push(`<${type}`);
  for (const [name, value] of Object.entries(props)) {
    if (name === 'children' || name === '__source' || name === '__self' || value === undefined || value === null || value === false) continue;
    if (!NAME.test(name)) throw new Error(`not an attribute name: ${name}`);
    out.push(value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`);
  }
  out.push('>');
  if (VOID.has(type)) return;
  write(props.children, out);
  out.push(`</${type}>`);
}

export function renderToString(node: Child): string {
  const out: string[] = [];
  write(node, out);
  return out.join('');
}
