// The fences between layers (eslint/layers.js, eslint/fences.js) hold on the whole tree, and they
// can fail: a bad import, another component's file and an import cycle are each reported. Only
// the fence rules run (eslint/fences.config.js: no type information), so this takes seconds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const CONFIG = join(packageRoot, 'eslint/fences.config.js');
const FENCED = ['src', 'receivers', 'processors', 'exporters', 'connectors', 'extensions', 'frontends', 'service'];

function fenceLinter(cwd: string): ESLint {
  return new ESLint({ cwd, overrideConfigFile: CONFIG, errorOnUnmatchedPattern: false });
}

function messagesOf(results: ESLint.LintResult[]): string[] {
  return results.flatMap((result) => result.messages.map((message) => `${result.filePath}:${message.line} ${message.ruleId ?? 'parse'}: ${message.message}`));
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway tree with the given files, linted with the fence rules. */
async function lintTree(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'faultline-fences-'));
  scratch.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return messagesOf(await fenceLinter(root).lintFiles(Object.keys(files)));
}

describe('layer fences', () => {
  it('the tree has no import across layers and no import cycle', async () => {
    const results = await fenceLinter(packageRoot).lintFiles(FENCED);
    expect(results.length).toBeGreaterThan(100);
    expect(messagesOf(results)).toEqual([]);
  }, 120_000);

  it('reports core importing a component, and a frontend importing a component', async () => {
    const messages = await lintTree({
      'processors/scrub/index.ts': 'export const scrub = 1;\n',
      'src/engine/graph.ts': "import { scrub } from '../../processors/scrub/index.js';\nexport const graph = scrub;\n",
      'frontends/api/events.ts': "import { scrub } from '../../processors/scrub/index.js';\nexport const events = scrub;\n",
    });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/src\/engine\/graph\.ts:1 fences\/layers: core .* imports components/);
    expect(messages[1]).toMatch(/frontends\/api\/events\.ts:1 fences\/layers: frontends .* imports components/);
  });

  it("reports a component importing another component's file, and allows core and extensions", async () => {
    const messages = await lintTree({
      'src/records/span.ts': 'export const span = 1;\n',
      'extensions/catalog/index.ts': "import { span } from '../../src/records/span.js';\nexport const catalog = span;\n",
      'receivers/otlp/decode.ts': 'export const decode = 1;\n',
      'receivers/kafka/receiver.ts': [
        "import { span } from '../../src/records/span.js';",
        "import { catalog } from '../../extensions/catalog/index.js';",
        "import { decode } from '../otlp/decode.js';",
        'export const receiver = [span, catalog, decode];',
        '',
      ].join('\n'),
    });
    expect(messages).toEqual([expect.stringMatching(/receivers\/kafka\/receiver\.ts:3 fences\/layers: receivers\/kafka imports receivers\/otlp\/decode\.js/)]);
  });

  it('reports a runtime import cycle, not one made of type-only imports', async () => {
    const messages = await lintTree({
      'src/engine/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/engine/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      'src/engine/c.ts': "import type { D } from './d.js';\nexport type C = { d?: D };\n",
      'src/engine/d.ts': "import { type C } from './c.js';\nexport type D = { c?: C };\n",
    });
    expect(messages).toEqual([
      expect.stringMatching(/src\/engine\/a\.ts:1 fences\/no-cycle: Import cycle: src\/engine\/a\.ts -> src\/engine\/b\.ts -> src\/engine\/a\.ts/),
      expect.stringMatching(/src\/engine\/b\.ts:1 fences\/no-cycle: Import cycle: src\/engine\/b\.ts -> src\/engine\/a\.ts -> src\/engine\/b\.ts/),
    ]);
  });
});
