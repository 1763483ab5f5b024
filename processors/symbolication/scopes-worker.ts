// The worker's half of scope-based function names: parses a minified (generated) JavaScript file
// with acorn and lists its function scopes, each with where it starts and ends and how it is
// named, the way Sentry's symbolicator (its `js-source-scopes` crate) names them:
//
//   function f() {}                 f
//   const f = () => {}              f            (also `let`, `var`, a default `f = () => {}`)
//   a.b.c = function () {}          a.b.c        (any member chain of plain names, `this.x` too)
//   const obj = { m() {}, p: () => {} }   obj.m, obj.p   (an object literal without a name: m, p)
//   class C { m() {} static s() {} }      C.m, C.s (getters and setters too)
//   class C { constructor() {} }          new C
//   class C { h = () => {} }              C.h
//   items.map((x) => x.id)          (anonymous: no name)
//
// A name is a list of components: bindings of the generated file (function, class and variable
// names, the object of `a.b`), by their position — the main thread maps each through the source
// map to its original name (scope-names.ts) — and literal text (`new `, `.`, property names, which
// minifiers keep). Positions are `line * 2^32 + column` (0-based line and UTF-16
// column): what stack frames give, so the main thread needs neither the generated text nor its
// line index.
//
// `scopeExtraction` is put into the worker's source text by pool.ts (like `workerMain`): it must be
// self-contained — only its parameter and globals, nothing imported at run time.
import type * as AcornModule from 'acorn';

/** Function scopes of a generated file, sorted by start (an enclosing scope before the ones it holds). */
export interface ScopeIndex {
  /** Per scope: start and end (exclusive) as `line * 2^32 + column`. */
  starts: Float64Array<ArrayBuffer>;
  ends: Float64Array<ArrayBuffer>;
  /** Per scope: the index of the scope enclosing it, or -1. */
  parents: Int32Array<ArrayBuffer>;
  /** Per scope: its name's components, [first, end) into `components` (empty: anonymous). */
  nameStarts: Int32Array<ArrayBuffer>;
  nameEnds: Int32Array<ArrayBuffer>;
  /**
   * Per component: 3 numbers. An identifier: 0, its position (`line * 2^32 + column`), its string
   * (index in `strings`). Literal text: 1, 0, its string.
   */
  components: Float64Array<ArrayBuffer>;
  strings: string[];
}

export const LINE_FACTOR = 2 ** 32;

type Acorn = typeof AcornModule;

/** Returns the extractor: bytes of a generated file → its scopes (throws when it does not parse). */
export function scopeExtraction(acorn: Acorn): (bytes: Uint8Array) => ScopeIndex {
  const LINE = 2 ** 32;

  interface Node {
    type: string;
    start: number;
    end: number;
    [key: string]: unknown;
  }

  /** A name as it is being built: identifiers (nodes) and literal text. */
  type Part = { node: Node } | { text: string };

  function isNode(value: unknown): value is Node {
    return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
  }

  /**
   * The name a function or object gets from what it is assigned to: a member chain of plain
   * names, without CommonJS's `exports.` / `module.exports.` (`exports.retry = {…}` names `retry`).
   */
  function assignedParts(node: Node): Part[] | undefined {
    const parts = chainParts(node);
    if (parts === undefined) return undefined;
    const text = (part: Part | undefined) => (part === undefined ? undefined : 'text' in part ? part.text : String(part.node.name));
    if (text(parts[0]) === 'exports' && parts.length > 2) return parts.slice(2);
    if (text(parts[0]) === 'module' && text(parts[2]) === 'exports' && parts.length > 4) return parts.slice(4);
    return parts;
  }

  /** `a.b.c`, `this.x`: the parts of a member chain of plain names, or undefined. */
  function chainParts(node: Node): Part[] | undefined {
    if (node.type === 'Identifier') return [{ node }];
    if (node.type === 'ThisExpression') return [{ text: 'this' }];
    if (node.type === 'MemberExpression' && !node.computed && isNode(node.object) && isNode(node.property)) {
      const head = chainParts(node.object);
      const key = keyParts(node.property, false);
      return head && key ? [...head, { text: '.' }, ...key] : undefined;
    }
    return undefined;
  }

  /** A property or method key: a name, a string, or a private `#name`; computed keys have none. */
  function keyParts(key: Node, computed: boolean): Part[] | undefined {
    // Property names are kept by minifiers (only bindings are renamed): taken as written.
    if (key.type === 'Identifier' && !computed) return [{ text: String(key.name) }];
    if (key.type === 'PrivateIdentifier') return [{ text: `#${String(key.name)}` }];
    if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) return [{ text: String(key.value) }];
    return undefined;
  }

  function joined(prefix: Part[] | undefined, key: Part[] | undefined): Part[] | undefined {
    if (key === undefined) return undefined;
    return prefix === undefined ? key : [...prefix, { text: '.' }, ...key];
  }

  const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
  const CLASSES = new Set(['ClassDeclaration', 'ClassExpression']);

  return (bytes: Uint8Array): ScopeIndex => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    const options = {
      ecmaVersion: 'latest' as const,
      allowHashBang: true,
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      allowImportExportEverywhere: true,
      allowReserved: true,
    };
    let program: unknown;
    try {
      program = acorn.parse(text, { ...options, sourceType: 'script' });
    } catch {
      // An ES module bundle (import/export, top-level await): strict-mode rules apply.
      program = acorn.parse(text, { ...options, sourceType: 'module' });
    }

    if (!isNode(program)) throw new Error('acorn returned no program');
    const lineStarts: number[] = [0];
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
    const position = (offset: number): number => {
      let low = 0;
      let high = lineStarts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >>> 1;
        if (lineStarts[mid] <= offset) low = mid;
        else high = mid - 1;
      }
      return low * LINE + (offset - lineStarts[low]);
    };

    const found: Array<{ start: number; end: number; name: Part[] | undefined }> = [];
    // Iterative walk (minified code nests deeply): each entry is a node and the name its parent
    // gives it (`hint`: a function's or class's name from where it is assigned; for an object
    // literal, the name of the object), plus the class whose body it is in.
    const stack: Array<{ node: Node; hint: Part[] | undefined; cls: Part[] | undefined }> = [{ node: program, hint: undefined, cls: undefined }];
    while (stack.length > 0) {
      const { node, hint, cls } = stack.pop() as (typeof stack)[number];
      let ownClass = cls;
      if (FUNCTIONS.has(node.type)) {
        const id = isNode(node.id) ? ([{ node: node.id }] as Part[]) : undefined;
        found.push({ start: node.start, end: node.end, name: id ?? hint });
      } else if (node.type === 'StaticBlock') {
        found.push({ start: node.start, end: node.end, name: cls });
      } else if (CLASSES.has(node.type)) {
        ownClass = isNode(node.id) ? [{ node: node.id }] : hint;
      }
      const push = (child: unknown, childHint?: Part[], childClass = ownClass) => {
        if (Array.isArray(child)) {
          for (let i = child.length - 1; i >= 0; i--) if (isNode(child[i])) stack.push({ node: child[i] as Node, hint: undefined, cls: childClass });
        } else if (isNode(child)) stack.push({ node: child, hint: childHint, cls: childClass });
      };
      switch (node.type) {
        case 'VariableDeclarator':
          push(node.id);
          push(node.init, isNode(node.id) && node.id.type === 'Identifier' ? [{ node: node.id }] : undefined);
          continue;
        case 'AssignmentExpression':
        case 'AssignmentPattern':
          push(node.left);
          push(node.right, isNode(node.left) ? assignedParts(node.left) : undefined);
          continue;
        case 'ObjectExpression':
          for (const property of (node.properties as Node[]) ?? []) {
            if (property.type !== 'Property') {
              push(property);
              continue;
            }
            if (property.computed) push(property.key);
            push(property.value, joined(hint, isNode(property.key) ? keyParts(property.key, property.computed === true) : undefined));
          }
          continue;
        case 'MethodDefinition':
        case 'PropertyDefinition': {
          if (node.computed) push(node.key);
          const key = isNode(node.key) ? keyParts(node.key, node.computed === true) : undefined;
          const name: Part[] | undefined =
            node.kind === 'constructor' ? (ownClass ? [{ text: 'new ' }, ...ownClass] : undefined) : key && (ownClass ? joined(ownClass, key) : key);
          push(node.value, name);
          continue;
        }
        default:
          for (const key in node) {
            if (key === 'type' || key === 'start' || key === 'end') continue;
            push(node[key]);
          }
      }
    }

    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const n = found.length;
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    const parents = new Int32Array(n);
    const nameStarts = new Int32Array(n);
    const nameEnds = new Int32Array(n);
    const components: number[] = [];
    const strings: string[] = [];
    const stringIndex = new Map<string, number>();
    const intern = (s: string): number => {
      let i = stringIndex.get(s);
      if (i === undefined) {
        i = strings.length;
        strings.push(s);
        stringIndex.set(s, i);
      }
      return i;
    };
    const open: number[] = [];
    for (let i = 0; i < n; i++) {
      const scope = found[i];
      while (open.length > 0 && found[open[open.length - 1]].end <= scope.start) open.pop();
      parents[i] = open.length > 0 ? open[open.length - 1] : -1;
      open.push(i);
      starts[i] = position(scope.start);
      ends[i] = position(scope.end);
      nameStarts[i] = components.length / 3;
      for (const part of scope.name ?? []) {
        if ('text' in part) components.push(1, 0, intern(part.text));
        else components.push(0, position(part.node.start), intern(text.slice(part.node.start, part.node.end)));
      }
      nameEnds[i] = components.length / 3;
    }
    return { starts, ends, parents, nameStarts, nameEnds, components: Float64Array.from(components), strings };
  };
}
