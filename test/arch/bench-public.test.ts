// Issue #24: the bench drives the service through its public interfaces (HTTP, CLI, config), not
// its internals. No file under bench/ imports a value from the service's own folders; a type
// (`import type`, or every specifier `type`) is allowed. bench/micro/ holds micro-benchmarks of one
// module each (not run by `npm run bench`), measuring a design choice in isolation. bench/grouping-eval/ is an offline
// evaluator of the grouping algorithm itself and is exempt.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const INTERNAL = /^\.\.\/(src|extensions|processors|receivers|exporters|connectors|frontends)\//;
const EXEMPT = ['bench/grouping-eval/', 'bench/micro/'];

/** The module specifiers of the value imports and re-exports of a TypeScript source. */
function valueImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) out.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) && !statement.isTypeOnly) {
      out.push(statement.moduleSpecifier.text);
    }
  }
  return out;
}

function benchFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(packageRoot, path).split('\\').join('/');
    if (entry.isDirectory()) return EXEMPT.some((e) => `${rel}/`.startsWith(e)) || entry.name === 'results' ? [] : benchFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The bench files that import a value from the service's internals, each with the specifiers. */
function offenders(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of benchFiles(join(packageRoot, 'bench'))) {
    const internal = valueImports(file, readFileSync(join(packageRoot, file), 'utf8')).filter((s) => INTERNAL.test(s));
    if (internal.length) found.set(file, internal);
  }
  return found;
}

describe('the bench drives the service through its public interfaces (issue #24)', () => {
  it('tells value imports from type-only ones', () => {
    const text = [
      "import type { A } from '../src/a.js';",
      "import { type B, type C } from '../src/b.js';",
      "import { D, type E } from '../extensions/d/index.js';",
      "import '../processors/side-effect.js';",
      "export { F } from '../receivers/f.js';",
      "export type { G } from '../exporters/g.js';",
      "import { H } from './child-phase.js';",
    ].join('\n');
    expect(valueImports('x.ts', text)).toEqual(['../extensions/d/index.js', '../processors/side-effect.js', '../receivers/f.js', './child-phase.js']);
  });

  it('no bench file imports a value from src/, extensions/ or a component', () => {
    const unexpected = [...offenders()].map(([file, specifiers]) => `${file}: ${specifiers.join(', ')}`);
    expect(unexpected).toEqual([]);
  });
});
