// What an uploaded file is and whether symbolication can use it: detection, the checks of each
// type, and the debug ids read from them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v5 as uuidv5 } from 'uuid';
import { afterAll, describe, expect, it } from 'vitest';
import { checkArtifact, PROGUARD_NAMESPACE, typeOfMediaType } from '../../src/records/artifact-content.js';
import type { ArtifactType } from '../../src/records/artifact.js';
import { checkSourceMap } from '../../src/records/source-map.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-content-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function check(name: string, content: string | Buffer, declared?: ArtifactType) {
  const path = join(dir, `f${n++}`);
  writeFileSync(path, content);
  return checkArtifact(name, path, declared);
}

const DEBUG_ID = '7f3c9a52-1d2e-4b8f-9a0c-5e6f7a8b9c0d';
const map = (over: Record<string, unknown> = {}) => ({ version: 3, sources: ['src/a.ts'], names: ['foo'], mappings: 'AAAA,CAACA;AACA', ...over });

function problem(message: string | RegExp) {
  return typeof message === 'string' ? { ok: false, field: 'content', message } : { ok: false, field: 'content', message: expect.stringMatching(message) };
}

describe('source maps', () => {
  it('accepts a v3 map and reads debugId or debug_id, lower case', async () => {
    expect(await check('app.js.map', JSON.stringify(map({ debugId: DEBUG_ID.toUpperCase() })))).toEqual({
      ok: true,
      facts: { type: 'source_map', debug_id: DEBUG_ID, source_mapping_url: null },
    });
    expect(await check('app.js.map', JSON.stringify(map({ debug_id: DEBUG_ID.replaceAll('-', '') })))).toMatchObject({ facts: { debug_id: DEBUG_ID } });
    expect(await check('app.js.map', JSON.stringify(map()))).toMatchObject({ facts: { debug_id: null } });
  });

  it("accepts sourcesContent, file, sourceRoot, null sources, no names, the )]}' prefix and a BOM", async () => {
    const full = map({ file: 'app.js', sourceRoot: '/src', sources: ['a.ts', null], sourcesContent: ['x', null], mappings: 'AAAA,ACAA' });
    delete (full as Record<string, unknown>).names;
    expect((await check('x.map', `\uFEFF)]}'\n${JSON.stringify(full)}`)).ok).toBe(true);
  });

  it.each([
    ['not JSON', '{"version": 3,', /^not a valid source map: it is not JSON \(/],
    ['version 2', JSON.stringify(map({ version: 2 })), 'not a valid source map: version must be 3, got 2'],
    ['no version', JSON.stringify(map({ version: undefined })), 'not a valid source map: version must be 3, got nothing'],
    ['an array', '[1]', 'not a valid source map: the source map must be a JSON object'],
    ['sources missing', JSON.stringify(map({ sources: undefined })), 'not a valid source map: sources must be an array, got nothing'],
    ['a number in sources', JSON.stringify(map({ sources: ['a', 2] })), 'not a valid source map: sources[1] must be a string or null, got 2'],
    ['null in names', JSON.stringify(map({ names: [null] })), 'not a valid source map: names[0] must be a string, got null'],
    ['mappings not a string', JSON.stringify(map({ mappings: [1] })), 'not a valid source map: mappings must be a string, got an array'],
    [
      'a character outside base64 VLQ',
      JSON.stringify(map({ mappings: 'AAAA;AA!A' })),
      'not a valid source map: mappings: "!" at offset 7 is not a base64 VLQ character ([A-Za-z0-9+/], with , and ;)',
    ],
    ['padding', JSON.stringify(map({ mappings: 'AAAA=' })), /mappings: "=" at offset 4 is not a base64 VLQ character/],
    ['two fields', JSON.stringify(map({ mappings: 'AAAA;AA' })), 'not a valid source map: mappings: line 2, segment 1 has 2 fields (1, 4 or 5 expected)'],
    ['six fields', JSON.stringify(map({ mappings: 'AAAAAA' })), 'not a valid source map: mappings: line 1, segment 1 has more than 5 fields'],
    ['a cut VLQ value', JSON.stringify(map({ mappings: 'AAAg' })), 'not a valid source map: mappings: line 1, segment 1 ends inside a VLQ value'],
    [
      'a source that is not there',
      JSON.stringify(map({ mappings: 'AAAA,ACAA' })),
      'not a valid source map: mappings: line 1, segment 2 refers to source 1, and there are 1',
    ],
    [
      'a name that is not there',
      JSON.stringify(map({ mappings: 'AAAAC' })),
      'not a valid source map: mappings: line 1, segment 1 refers to name 1, and there are 1',
    ],
    ['a debugId that is no UUID', JSON.stringify(map({ debugId: 'abc' })), 'not a valid source map: debugId must be a UUID, got "abc"'],
  ])('refuses %s', async (_case, content, message) => {
    expect(await check('app.js.map', content)).toEqual(problem(message));
  });

  describe('index maps', () => {
    const section = (line: number, column: number, inner: unknown = map()) => ({ offset: { line, column }, map: inner });

    it('accepts sections in order, each a valid map, and reads the top-level debugId', async () => {
      const index = { version: 3, file: 'app.js', debugId: DEBUG_ID, sections: [section(0, 0), section(0, 10), section(3, 0)] };
      expect(await check('app.js.map', JSON.stringify(index))).toEqual({
        ok: true,
        facts: { type: 'source_map', debug_id: DEBUG_ID, source_mapping_url: null },
      });
    });

    it.each([
      ['sections not an array', { sections: {} }, 'sections must be an array, got an object'],
      ['a section without offset', { sections: [{ map: map() }] }, 'sections[0].offset must be an object {line, column}'],
      ['a negative column', { sections: [section(0, -1)] }, 'sections[0].offset.column must be an integer ≥ 0, got -1'],
      ['sections out of order', { sections: [section(2, 0), section(1, 5)] }, "sections[1].offset must come after the previous section's"],
      ['a section map of version 2', { sections: [section(0, 0), section(1, 0, map({ version: 2 }))] }, 'sections[1].map.version must be 3, got 2'],
      ['a section map with bad mappings', { sections: [section(0, 0, map({ mappings: 'A A' }))] }, 'sections[0].map.mappings: " " at offset 1'],
      [
        'a nested index map gone wrong',
        { sections: [section(0, 0, { version: 3, sections: [section(0, 0, map({ sources: 1 }))] })] },
        'sections[0].map.sections[0].map.sources must be an array, got 1',
      ],
      [
        'a section pointing to a url',
        { sections: [{ offset: { line: 0, column: 0 }, url: 'x.map' }] },
        'sections[0]: sections that point to a url are not supported',
      ],
      ['sections and mappings', { sections: [], mappings: '' }, 'an index map (with sections) has no mappings of its own'],
    ])('refuses %s', (_case, body, message) => {
      const result = checkSourceMap({ version: 3, ...body });
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.message).toContain(message);
    });
  });
});

describe('minified sources', () => {
  it('reads the last sourceMappingURL and debugId comments', async () => {
    const js = `console.log(1);\n//# sourceMappingURL=old.js.map\n//# debugId=${DEBUG_ID.toUpperCase()}\nfoo();\n//# sourceMappingURL=app.min.js.map\r\n`;
    expect(await check('https://cdn.example.com/static/app.min.js?v=3', js)).toEqual({
      ok: true,
      facts: { type: 'minified_source', debug_id: DEBUG_ID, source_mapping_url: 'app.min.js.map' },
    });
  });

  it('keeps only the head of an inline (data:) map URL, however long the line', async () => {
    const inline = `x();\n//@ sourceMappingURL=data:application/json;base64,${'A'.repeat(200_000)}\n`;
    expect(await check('app.mjs', inline)).toMatchObject({ ok: true, facts: { source_mapping_url: 'data:application/json;base64,' } });
  });

  it('has no URL or debug id when it has no comments, and refuses a debugId that is no UUID', async () => {
    expect(await check('a.cjs', 'x()')).toMatchObject({ ok: true, facts: { debug_id: null, source_mapping_url: null } });
    expect(await check('a.js', 'x()\n//# debugId=123\n')).toEqual(
      problem('not a valid minified source: line 2: its debugId comment must carry a UUID, got "123"'),
    );
  });
});

describe('ProGuard mapping files', () => {
  const mapping = [
    '# compiler: R8',
    'com.example.MainActivity -> a.a:',
    '    int counter -> a',
    '    1:3:void onCreate(android.os.Bundle):12:14 -> onCreate',
    '    4:4:void com.example.Util.inlined():42:42 -> onCreate',
    '    java.lang.Object putIfAbsent(java.lang.Object,java.lang.Object) -> b',
    '    # {"id":"sourceFile","fileName":"MainActivity.kt"}',
    '',
    'com.example.Util -> a.b:',
    '    void <init>() -> <init>',
  ].join('\n');

  it('accepts class and member lines; the debug id is the UUIDv5 sentry-cli computes', async () => {
    expect(PROGUARD_NAMESPACE).toBe(uuidv5('guardsquare.com', uuidv5.DNS));
    expect(await check('mapping.txt', mapping)).toEqual({
      ok: true,
      facts: { type: 'proguard', debug_id: uuidv5(Buffer.from(mapping), PROGUARD_NAMESPACE), source_mapping_url: null },
    });
  });

  it('takes the pg_map_id of the R8 header when it is a UUID, and ignores one that is not', async () => {
    const header = (id: string) => `# {"id":"com.android.tools.r8.mapping","version":"2.2","pg_map_id":"${id}"}\n${mapping}`;
    expect(await check('mapping.txt', header(DEBUG_ID.toUpperCase()))).toMatchObject({ facts: { debug_id: DEBUG_ID } });
    expect(await check('mapping.txt', `# pg_map_id: ${DEBUG_ID}\n${mapping}`)).toMatchObject({ facts: { debug_id: DEBUG_ID } });
    const short = header('5b46fdc');
    expect(await check('mapping.txt', short)).toMatchObject({ facts: { debug_id: uuidv5(Buffer.from(short), PROGUARD_NAMESPACE) } });
  });

  it.each([
    ['a line that is neither', `${mapping}\nthis is not a mapping line`, /^not a valid ProGuard mapping file: line 11 is neither a class line/],
    ['a member before any class', '    int x -> a\na.B -> c:', 'not a valid ProGuard mapping file: line 1: a member line before any class line'],
    ['no class at all', '# only a comment\n', 'not a valid ProGuard mapping file: it has no class lines (a.b.C -> x:)'],
  ])('refuses %s', async (_case, content, message) => {
    expect(await check('mapping.txt', content)).toEqual(problem(message));
  });
});

describe('Breakpad symbol files', () => {
  const sym = [
    'MODULE Linux x86_64 3249D99D0C4049318610F4E4FB0B69361 libapp.so',
    'INFO CODE_ID 9DD94932400C3149',
    'FILE 0 /src/app.c',
    'FUNC 1000 30 0 crash',
    '1000 10 42 0',
    'PUBLIC 2000 0 main',
    'STACK CFI INIT 1000 30 .cfa: $rsp 8 +',
  ].join('\n');

  it('reads the MODULE id, lower case, as the debug id', async () => {
    expect(await check('libapp.so.sym', sym)).toEqual({
      ok: true,
      facts: { type: 'breakpad', debug_id: '3249d99d0c4049318610f4e4fb0b69361', source_mapping_url: null },
    });
  });

  it.each([
    ['no MODULE line', sym.split('\n').slice(1).join('\n'), /^not a valid Breakpad symbol file: line 1 must be MODULE <os> <arch> <id> <name>, got "INFO/],
    ['an empty file', '', 'not a valid Breakpad symbol file: it is empty: line 1 must be MODULE <os> <arch> <id> <name>'],
    ['a line that is no record', `${sym}\nhello world`, 'not a valid Breakpad symbol file: line 8 is not a Breakpad record: "hello world"'],
  ])('refuses %s', async (_case, content, message) => {
    expect(await check('libapp.sym', content)).toEqual(problem(message));
  });
});

describe('detection', () => {
  it.each([
    ['app.js.map', JSON.stringify(map()), 'source_map'],
    ['https://cdn.example.com/app.js.map?v=1#x', JSON.stringify(map()), 'source_map'],
    ['bundle', JSON.stringify(map()), 'source_map'],
    ['app.js', 'x()', 'minified_source'],
    ['lib.sym', 'MODULE mac arm64 3249D99D0C4049318610F4E4FB0B69361 lib', 'breakpad'],
    ['symbols', 'MODULE mac arm64 3249D99D0C4049318610F4E4FB0B69361 lib', 'breakpad'],
    ['mapping.txt', 'a.B -> c:', 'proguard'],
    ['mapping', '# comment\na.B -> c:\n    int x -> a', 'proguard'],
  ])('detects the type of %s from its name or content', async (name, content, type) => {
    expect(await check(name, content)).toMatchObject({ ok: true, facts: { type } });
  });

  it('checks a file as its declared type, whatever its name', async () => {
    expect(await check('notes.txt', JSON.stringify(map()), 'source_map')).toMatchObject({ ok: true, facts: { type: 'source_map' } });
    expect(await check('app.js.map', 'x()', 'minified_source')).toMatchObject({ ok: true, facts: { type: 'minified_source' } });
    expect(await check('app.js', 'x()', 'breakpad')).toEqual(problem(/^not a valid Breakpad symbol file: line 1 must be MODULE/));
  });

  it('asks for a type when neither name nor content tell', async () => {
    expect(await check('README', 'hello')).toEqual({ ok: false, field: 'type', message: expect.stringMatching(/^cannot tell what kind of file this is/) });
  });

  it('reads a type from a part Content-Type', () => {
    expect(typeOfMediaType('application/json; charset=utf-8')).toBe('source_map');
    expect(typeOfMediaType('text/javascript')).toBe('minified_source');
    expect(typeOfMediaType('text/x-proguard')).toBe('proguard');
    expect(typeOfMediaType('application/x-breakpad')).toBe('breakpad');
    expect(typeOfMediaType('application/octet-stream')).toBeUndefined();
    expect(typeOfMediaType(undefined)).toBeUndefined();
  });
});
