// The documented examples as a new team runs them: every list request (`curl … $API/v1/<list>?…`)
// in docs/ and the component READMEs answers 200 with the key printed at the first start (an
// organization key, so lists name their project), and every command is `npx faultline …`, the form
// that works in a fresh clone (`faultline` is not on the PATH after `npm install`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { startService, type TestService } from '../support/service.js';

const LISTS = /^\/v1\/(?:events|issues|replays|alerts|sourcemaps|traces)$/;
const COMMANDS = 'start|validate|components|keys|projects|quarantine|alerts|users|sourcemaps';

function documents(): Array<{ file: string; text: string }> {
  const docs = readdirSync(join(packageRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  const readmes = ['receivers', 'processors', 'exporters', 'connectors'].flatMap((kind) =>
    readdirSync(join(packageRoot, kind), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(kind, entry.name, 'README.md')),
  );
  return [...docs, ...readmes].flatMap((file) => {
    try {
      return [{ file, text: readFileSync(join(packageRoot, file), 'utf8') }];
    } catch {
      return [];
    }
  });
}

/** The shell lines of the fenced code blocks, joined where they end in `\`. */
function shellLines(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/^```/m).filter((_, i) => i % 2 === 1)) {
    const lang = block.slice(0, block.indexOf('\n')).trim();
    if (!['', 'sh', 'bash', 'shell', 'console'].includes(lang)) continue;
    out.push(
      ...block
        .slice(block.indexOf('\n') + 1)
        .replace(/\\\n\s*/g, ' ')
        .split('\n'),
    );
  }
  return out;
}

/** GET requests to list routes: the URL after `$API` (the file's own `API=` base decides the /v1). */
function listRequests(text: string): string[] {
  const base = /^API=https?:\/\/[^/\s]+(\S*)$/m.exec(text)?.[1] ?? '';
  return shellLines(text)
    .filter((line) => /^curl\b/.test(line.trim()) && !/\s(?:-d|-X|-F|--data\S*)\s/.test(line) && !line.includes('…'))
    .flatMap((line) => {
      const match = /"\$API(\/[^"\s]*)"|\$API(\/\S*)/.exec(line);
      const path = match ? `${base}${match[1] ?? match[2]}` : undefined;
      return path && LISTS.test(path.split('?')[0]) ? [path] : [];
    });
}

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

describe('documented examples', () => {
  it('every list request answers 200 with the organization key printed at the first start', async () => {
    const requests = documents().flatMap(({ file, text }) => listRequests(text).map((path) => ({ file, path })));
    expect(requests.map((r) => r.path)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/v1\/events\?/), expect.stringMatching(/^\/v1\/issues\?/)]));
    for (const { file, path } of requests) {
      const res = await svc.api(path);
      expect(res.status, `${file}: GET ${path}: ${await res.clone().text()}`).toBe(200);
    }
  });

  it('every command is run as `npx faultline …`', () => {
    const bare = new RegExp(`(?<![\\w/.-])(?<!npx )faultline (?:${COMMANDS})\\b`);
    const found = documents().flatMap(({ file, text }) =>
      text
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => bare.test(line))
        .map(({ line, index }) => `${file}:${index + 1}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
