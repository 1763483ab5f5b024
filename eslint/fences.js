// The fences between layers, as two ESLint rules over relative imports (the tree imports its own
// files only by relative paths):
// - `fences/layers`: an import from a layer its `mayImport` does not list, or from another unit of
//   an isolated layer (one component importing another's files), is an error. The table is
//   eslint/layers.js.
// - `fences/no-cycle`: an import that closes a cycle of runtime imports is an error. Type-only
//   imports are left out: TypeScript erases them, so they make no cycle at run time.
// Written here rather than taken from eslint-plugin-import-x: the layer check needs only paths, no
// resolver, and the cycle check is one depth-first search over files parsed once per process
// (re-read when their mtime changes), with the TypeScript parser the project already has.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { LAYERS } from './layers.js';

/** A glob of the table as a matcher: `*` is one path segment, a final `/**` anything below. */
function compile(glob) {
  const deep = glob.endsWith('/**');
  const stem = deep ? glob.slice(0, -3) : glob;
  const source = stem.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  const segments = stem.split('/').length;
  return { regex: new RegExp(`^${source}${deep ? '/.+' : ''}$`), specificity: glob.split('*')[0].length, unitDepth: segments };
}

const MATCHERS = LAYERS.flatMap((layer) => layer.globs.map((glob) => ({ layer, ...compile(glob) })));

/** The layer a repository-relative path is in and its unit (the folder the glob names), or undefined. */
export function layerOf(relative) {
  let best;
  for (const matcher of MATCHERS) {
    if (matcher.regex.test(relative) && (!best || matcher.specificity > best.specificity)) best = matcher;
  }
  if (!best) return undefined;
  return { layer: best.layer, unit: relative.split('/').slice(0, best.unitDepth).join('/') };
}

const posix = (file) => file.split(path.sep).join('/');

/** A relative specifier's target, repository-relative, with `.js` read as the `.ts` it compiles from. */
function targetOf(root, fromFile, specifier) {
  return posix(path.relative(root, path.resolve(path.dirname(fromFile), specifier)));
}

/** The relative specifiers a file imports or re-exports at run time (not `import type`, `export type`, dynamic `import()` included). */
function runtimeImports(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!typeOnly(node)) out.push({ specifier: node.moduleSpecifier.text, pos: node.getStart(source) });
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      out.push({ specifier: node.arguments[0].text, pos: node.getStart(source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out.filter((entry) => entry.specifier.startsWith('.'));
}

/** `import type …`, `export type …`, or named imports that are all `type` (erased without verbatimModuleSyntax). */
function typeOnly(node) {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

/** A specifier's file on disk: `x.js` is `x.ts` or `x.tsx`, a folder its index. */
function resolveFile(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.js$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`]) {
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

const parsed = new Map();

/** A file's runtime imports as absolute paths, parsed once per mtime. */
function edgesOf(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return [];
  }
  const cached = parsed.get(file);
  if (cached && cached.mtimeMs === stat.mtimeMs) return cached.edges;
  const edges = runtimeImports(file, fs.readFileSync(file, 'utf8'))
    .map((entry) => resolveFile(file, entry.specifier))
    .filter((target) => target !== undefined);
  parsed.set(file, { mtimeMs: stat.mtimeMs, edges });
  return edges;
}

/** A path of runtime imports from `start` back to `file`, or undefined (iterative DFS: bounded by the files in the tree). */
function pathBack(start, file) {
  const seen = new Set([start]);
  const stack = [[start, [start]]];
  while (stack.length > 0) {
    const [current, trail] = stack.pop();
    for (const next of edgesOf(current)) {
      if (next === file) return trail;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push([next, [...trail, next]]);
    }
  }
  return undefined;
}

const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports only from the layers eslint/layers.js allows, and no other component’s files' },
    schema: [],
  },
  create(context) {
    const root = context.cwd;
    const relative = posix(path.relative(root, context.filename));
    const from = layerOf(relative);
    if (!from) return {};
    const check = (node, specifier) => {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = targetOf(root, context.filename, specifier);
      const to = layerOf(target);
      if (!to) return;
      if (to.layer === from.layer) {
        if (from.layer.isolated && to.unit !== from.unit) {
          context.report({
            node,
            message: `${from.unit} imports ${target}: a ${from.layer.layer} unit imports no other unit's files (share through core or an extension)`,
          });
        }
        return;
      }
      if (!from.layer.mayImport.includes(to.layer.layer)) {
        context.report({
          node,
          message: `${from.layer.layer} (${relative}) imports ${to.layer.layer} (${target}): ${from.layer.layer} may import only ${from.layer.mayImport.join(', ') || 'itself'}`,
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No cycle of runtime imports' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    if (!/\.tsx?$/.test(file)) return {};
    return {
      Program() {
        const text = context.sourceCode.text;
        for (const entry of runtimeImports(file, text)) {
          const target = resolveFile(file, entry.specifier);
          if (!target) continue;
          const trail = target === file ? [] : pathBack(target, file);
          if (!trail) continue;
          const cycle = [file, ...trail, file].map((step) => posix(path.relative(context.cwd, step))).join(' -> ');
          context.report({ loc: context.sourceCode.getLocFromIndex(entry.pos), message: `Import cycle: ${cycle}` });
        }
      },
    };
  },
};

export default { meta: { name: 'faultline-fences' }, rules: { layers, 'no-cycle': noCycle } };
