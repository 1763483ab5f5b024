// Every shell example in README.md and docs/ runs as written against a live service and prints
// what the text says it prints (conventions in ./examples.ts); every relative link resolves.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { prepare, requiredFragments, shellExamples, type ShellExample } from './examples.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(packageRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const examples: ShellExample[] = DOCS.flatMap((file) => shellExamples(file, readFileSync(join(packageRoot, file), 'utf8')));

// `npx faultline` is the documented form; here it runs the built CLI directly, so the examples do
// not wait on npm's own start-up (test/e2e/process.test.ts runs the command itself). Any HTTP
// error fails the example's curl.
// Variables set in a block (upper-case names) carry over to the next blocks of the same file.
const PRELUDE = `set -euo pipefail
[ -f "$DOCS_STATE" ] && source "$DOCS_STATE"
trap 'declare -p $(compgen -v | grep -E "^[A-Z][A-Z0-9_]*$" | grep -vE "^(BASH.*|SHELL.*|PWD|OLDPWD|SHLVL|PPID|UID|EUID|GROUPS|HOST.*|MACHTYPE|OSTYPE|IFS|PS[0-9]|OPTIND|OPTERR|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|DIRSTACK|FUNCNAME|PIPESTATUS|COLUMNS|LINES|EPOCH.*|_)$") > "$DOCS_STATE" 2>/dev/null' EXIT
npx() { if [ "$1" = faultline ]; then shift; node "$FAULTLINE_BIN" "$@"; elif command -v "$1" >/dev/null; then "$@"; else command npx --no-install "$@"; fi; }
curl() { command curl --fail-with-body --max-time 30 "$@"; }
`;

describe('shell examples in README.md and docs/', () => {
  let service: TestService;
  let workspace: string;

  beforeAll(async () => {
    service = await startService({ env: { FAULTLINE_APP_URL: 'http://localhost:8080' } });
    // The folder the examples run in: an application's source (the fixture app), as a team has.
    workspace = tempDir('faultline-docs-');
    cpSync(join(packageRoot, 'test/fixtures/app/src'), join(workspace, 'src'), { recursive: true });
  });
  afterAll(async () => {
    await service?.stop();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const runnable = examples.filter((example) => example.skip === undefined);

  it.each(runnable.map((example) => [`${example.file}:${example.line}`, example] as const))('%s', async (_where, example) => {
    const apiHost = service.baseUrl.replace('http://', '');
    const otlpHost = (service.otlpUrl ?? '').replace('http://', '');
    const script = PRELUDE + prepare(example.code, { apiHost, otlpHost, liveKey: service.liveKey, testKey: service.testKey });
    const result = await run(script, workspace, {
      FAULTLINE_BIN: join(packageRoot, 'bin/faultline.js'),
      FAULTLINE_DATA_DIR: service.dataDir,
      FAULTLINE_URL: service.baseUrl,
      // The CLI finds the service's URL from the configuration, whose port the environment sets.
      FAULTLINE_HTTP_PORT: apiHost.split(':')[1]!,
      FAULTLINE_OTLP_PORT: otlpHost.split(':')[1] ?? '4318',
      // sentry-cli, as the README runs it: no update check, no .env files.
      SENTRY_DISABLE_UPDATE_CHECK: 'true',
      SENTRY_LOAD_DOTENV: '0',
      DOCS_STATE: join(workspace, `.state-${example.file.replace(/\W/g, '_')}`),
      PATH: `${join(packageRoot, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
    });
    const context = `${example.file}:${example.line} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
    expect(result.code, context).toBe(0);
    const output = result.stdout.replace(/\s+/g, ' ');
    for (const fragment of requiredFragments(example.expectations)) expect(output, `${context}\n--- missing: ${fragment}`).toContain(fragment);
  });

  it('skips only blocks that say why', () => {
    const skipped = examples.filter((example) => example.skip !== undefined);
    for (const example of skipped) expect(example.skip!.length, `${example.file}:${example.line}`).toBeGreaterThan(10);
    expect(runnable.length).toBeGreaterThan(skipped.length);
  });
});

describe('the examples conventions', () => {
  it('finds blocks, their skips and what they say they print', () => {
    const markdown = [
      '<!-- docs-test: skip — starts a server that never stops -->',
      '',
      '```sh',
      'npm start',
      '```',
      '```sh',
      'curl -s http://127.0.0.1:8080/v1/x -H "Authorization: Bearer fl_live_..."',
      '# {"id":"01a2…","status":"queued","ok":true}',
      '# Uploaded 2 files to bundle 01a2… (project default)',
      '',
      '# prose before the next command',
      'echo done',
      '```',
    ].join('\n');
    const [first, second] = shellExamples('x.md', markdown);
    expect(first).toMatchObject({ line: 3, skip: 'starts a server that never stops' });
    expect(second!.skip).toBeUndefined();
    expect(requiredFragments(second!.expectations)).toEqual(['"id":', '"status":"queued"', '"ok":true', 'Uploaded', 'files', 'bundle', 'project', 'default']);
    expect(prepare(second!.code, { apiHost: '127.0.0.1:1234', otlpHost: '127.0.0.1:5678', liveKey: 'fl_live_K', testKey: 'fl_test_T' })).toContain(
      'http://127.0.0.1:1234/v1/x -H "Authorization: Bearer fl_live_K"',
    );
  });
});

describe('README.md', () => {
  it('stays a front door of at most 12 KB', () => {
    expect(statSync(join(packageRoot, 'README.md')).size).toBeLessThanOrEqual(12_000);
  });
});

describe('links in README.md and docs/', () => {
  it.each(DOCS)('%s links only to files and headings that exist', (file) => {
    const text = readFileSync(join(packageRoot, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const absolute = path ? resolve(dirname(join(packageRoot, file)), path) : join(packageRoot, file);
      if (!existsSync(absolute)) {
        broken.push(target!);
        continue;
      }
      if (anchor && absolute.endsWith('.md') && !headingAnchors(readFileSync(absolute, 'utf8')).has(anchor)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      heading!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

function run(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    // No standard input: a command that reads it when piped (users create) sees it empty.
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolvePromise({ code: code ?? 1, stdout, stderr }));
  });
}
