// End to end: POST/GET/DELETE /v1/sourcemaps against the real service on loopback — both upload
// forms, a multipart body streamed to disk as it arrives, every kind of invalid file refused with
// nothing stored, size caps, idempotence, lists, deletes, auth, retention, and the lookups the
// symbolication processor makes over what was uploaded.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { expectError } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';
import { artifactsOf } from '../../extensions/artifacts/index.js';
import { catalogOf } from '../../extensions/catalog/index.js';

const MiB = 1024 * 1024;
const DEBUG_ID = '7f3c9a52-1d2e-4b8f-9a0c-5e6f7a8b9c0d';

let svc: TestService;
/** A live project key of `shop`. */
let shopKey: string;

beforeAll(async () => {
  // The default configuration, with a 1 MiB upload cap so that the size tests stay small.
  const yaml = readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8').replace(
    'service:\n',
    'service:\n  limits:\n    sourcemap_upload_bytes: 1048576\n',
  );
  svc = await startService({ yaml });
  const catalog = catalogOf(svc.service.host);
  for (const id of ['shop', 'invalid', 'paging', 'sizes', 'idem', 'deletes', 'expiry', 'other']) await catalog.createProject({ id, name: id });
  shopKey = (await catalog.createKey({ dataset: 'live', projectId: 'shop' })).secret;
});

afterAll(async () => {
  await svc?.stop();
});

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const artifactsDir = () => join(svc.dataDir, 'artifacts');

/** Every stored content file, by sha256. */
function storedFiles(): string[] {
  return readdirSync(artifactsDir())
    .filter((shard) => /^[0-9a-f]{2}$/.test(shard))
    .flatMap((shard) => readdirSync(join(artifactsDir(), shard)));
}

function map(over: Record<string, unknown> = {}) {
  return JSON.stringify({ version: 3, file: 'app.min.js', sources: ['src/app.ts'], names: ['boot'], mappings: 'AAAA,CAACA', ...over });
}

async function postJson(body: unknown, key?: string, headers: Record<string, string> = {}): Promise<Response> {
  return svc.api('/v1/sourcemaps', { method: 'POST', body: JSON.stringify(body), key, headers });
}

async function created(res: Response): Promise<Record<string, any>> {
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as Record<string, any>;
}

async function getJson(path: string, key?: string): Promise<Record<string, any>> {
  const res = await svc.api(path, { key });
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text) as Record<string, any>;
}

async function list(project: string, query = ''): Promise<Record<string, any>> {
  return getJson(`/v1/sourcemaps?project_id=${project}${query}`);
}

function form(fields: Record<string, string>, files: Array<{ name: string; content: string | Buffer; type?: string; field?: string }>): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  for (const file of files) body.append(file.field ?? 'file', new Blob([file.content], { type: file.type ?? 'application/octet-stream' }), file.name);
  return body;
}

describe('POST /v1/sourcemaps', () => {
  it('takes the JSON form and answers 201 with the bundle; GET and the list show it', async () => {
    const js = `boot();\n//# debugId=${DEBUG_ID}\n//# sourceMappingURL=app.min.js.map\n`;
    const bundle = await created(
      await postJson({
        project_id: 'shop',
        release: 'shop@1.0.0',
        dist: 'web',
        files: [
          { name: '~/static/js/app.min.js.map', content: map({ debugId: DEBUG_ID }) },
          { name: '~/static/js/app.min.js', content: Buffer.from(js).toString('base64'), encoding: 'base64' },
        ],
      }),
    );
    expect(Object.keys(bundle)).toEqual(['id', 'project_id', 'release', 'dist', 'created_at', 'files']);
    expect(bundle).toMatchObject({ project_id: 'shop', release: 'shop@1.0.0', dist: 'web' });
    expect(Date.now() - Date.parse(bundle.created_at)).toBeLessThan(60_000);
    expect(bundle.files).toEqual([
      { name: '~/static/js/app.min.js', type: 'minified_source', size: Buffer.byteLength(js), sha256: sha256(js), debug_id: DEBUG_ID },
      {
        name: '~/static/js/app.min.js.map',
        type: 'source_map',
        size: Buffer.byteLength(map({ debugId: DEBUG_ID })),
        sha256: sha256(map({ debugId: DEBUG_ID })),
        debug_id: DEBUG_ID,
      },
    ]);
    expect(await getJson(`/v1/sourcemaps/${bundle.id}`)).toEqual(bundle);
    const page = await list('shop', '&release=shop@1.0.0');
    expect(page.data).toContainEqual({
      ...bundle,
      files: undefined,
      file_count: 2,
      size: Buffer.byteLength(js) + Buffer.byteLength(map({ debugId: DEBUG_ID })),
    });
    expect(readFileSync(join(artifactsDir(), sha256(js).slice(0, 2), sha256(js)), 'utf8')).toBe(js);
    expect(statSync(join(artifactsDir(), sha256(js).slice(0, 2), sha256(js))).mode & 0o777).toBe(0o600);
  });

  it('takes multipart/form-data: every file part, whatever its field, named by its filename, typed by Content-Type or detection', async () => {
    const proguard = 'com.example.Main -> a.a:\n    void run() -> a\n';
    const sym = 'MODULE Linux x86_64 3249D99D0C4049318610F4E4FB0B69361 libapp.so\nFUNC 1000 30 0 crash\n';
    const body = form({ release: 'shop@2.0.0' }, [
      { name: 'mapping.txt', content: proguard, field: 'proguard' },
      { name: 'libapp.so.sym', content: sym, field: 'whatever' },
      { name: 'https://cdn.example.com/bundle', content: map(), type: 'application/json' },
    ]);
    const bundle = await created(await svc.api('/v1/sourcemaps', { method: 'POST', body, key: shopKey }));
    expect(bundle).toMatchObject({ project_id: 'shop', release: 'shop@2.0.0', dist: null });
    expect(bundle.files.map((f: any) => [f.name, f.type, f.debug_id])).toEqual([
      ['https://cdn.example.com/bundle', 'source_map', null],
      ['libapp.so.sym', 'breakpad', '3249d99d0c4049318610f4e4fb0b69361'],
      ['mapping.txt', 'proguard', expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)],
    ]);
    expect(bundle.files[2].sha256).toBe(sha256(proguard));
  });

  it('streams a multipart body to disk as it arrives, without Content-Length', async () => {
    const boundary = 'faultline-test-boundary';
    const big = `${'x();'.repeat(150_000)}\n//# debugId=${DEBUG_ID}\n`; // 600 KB of minified source
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="release"\r\n\r\nshop@3.0.0\r\n--${boundary}\r\nContent-Disposition: form-data; name="project_id"\r\n\r\nshop\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="~/big.js"\r\nContent-Type: application/javascript\r\n\r\n`;
    const tail = `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="~/big.js.map"\r\n\r\n${map({ debugId: DEBUG_ID })}\r\n--${boundary}--\r\n`;
    let release!: () => void;
    const halfway = new Promise<void>((resolve) => (release = resolve));
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode(head + big.slice(0, 300_000)));
        await halfway;
        controller.enqueue(new TextEncoder().encode(big.slice(300_000) + tail));
        controller.close();
      },
    });
    const response = svc.api('/v1/sourcemaps', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      duplex: 'half',
    } as RequestInit);
    // Half the file has been sent and the body is not over: its bytes are on disk already.
    const staging = join(artifactsDir(), 'tmp');
    const deadline = Date.now() + 10_000;
    let staged = 0;
    while (staged < 300_000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      staged = readdirSync(staging).reduce((sum, name) => sum + statSync(join(staging, name)).size, 0);
    }
    expect(staged).toBeGreaterThanOrEqual(300_000);
    release();
    const bundle = await created(await response);
    expect(bundle.files).toEqual([
      { name: '~/big.js', type: 'minified_source', size: big.length, sha256: sha256(big), debug_id: DEBUG_ID },
      expect.objectContaining({ name: '~/big.js.map', type: 'source_map', debug_id: DEBUG_ID }),
    ]);
    expect(readdirSync(staging)).toEqual([]);
  });

  it('takes gzip request bodies in both forms', async () => {
    const json = gzipSync(JSON.stringify({ project_id: 'shop', release: 'shop@gz', files: [{ name: 'a.js.map', content: map() }] }));
    expect((await created(await svc.api('/v1/sourcemaps', { method: 'POST', body: json, headers: { 'content-encoding': 'gzip' } }))).files).toHaveLength(1);
    const multipart = new Request('http://x', {
      method: 'POST',
      body: form({ project_id: 'shop', release: 'shop@gz2' }, [{ name: 'b.js.map', content: map() }]),
    });
    const raw = Buffer.from(await multipart.arrayBuffer());
    const res = await svc.api('/v1/sourcemaps', {
      method: 'POST',
      body: gzipSync(raw),
      headers: { 'content-type': multipart.headers.get('content-type') as string, 'content-encoding': 'gzip' },
    });
    expect((await created(res)).files[0].name).toBe('b.js.map');
  });
});

describe('POST /v1/sourcemaps: invalid files', () => {
  const good = { name: '~/good.js.map', content: map({ names: ['kept?'] }) };

  it.each([
    ['a malformed JSON map', { name: '~/a.js.map', content: '{"version": 3, "sources": [' }, /^not a valid source map: it is not JSON/],
    ['bad VLQ characters', { name: '~/a.js.map', content: map({ mappings: 'AAAA;A$AA' }) }, /mappings: "\$" at offset 6 is not a base64 VLQ character/],
    ['version 2', { name: '~/a.js.map', content: map({ version: 2 }) }, /^not a valid source map: version must be 3, got 2$/],
    [
      'a bad index map section',
      {
        name: '~/a.js.map',
        content: JSON.stringify({ version: 3, sections: [{ offset: { line: 0, column: 0 }, map: { version: 3, sources: 'a.ts', mappings: '' } }] }),
      },
      /sections\[0\]\.map\.sources must be an array/,
    ],
    [
      'a bad ProGuard line',
      { name: 'mapping.txt', content: 'com.example.A -> a:\n    void run() -> a\nnot a mapping line at all\n' },
      /^not a valid ProGuard mapping file: line 3 is neither/,
    ],
    ['Breakpad without MODULE', { name: 'libapp.sym', content: 'FUNC 1000 30 0 crash\n' }, /^not a valid Breakpad symbol file: line 1 must be MODULE/],
  ])('refuses %s with 400, its details path, and stores nothing of the upload', async (_case, bad, message) => {
    const before = storedFiles().length;
    for (const multipart of [false, true]) {
      const files = [good, { name: '~/other.js', content: 'x()' }, bad];
      const res = multipart
        ? await svc.api('/v1/sourcemaps', { method: 'POST', body: form({ project_id: 'invalid', release: 'bad@1' }, files) })
        : await postJson({ project_id: 'invalid', release: 'bad@1', files });
      const body = await expectError(res, 400, 'validation_failed');
      expect(body.error.details).toEqual([{ path: 'files[2].content', message: expect.stringMatching(message) }]);
    }
    expect((await list('invalid')).data).toEqual([]);
    expect(storedFiles()).toHaveLength(before);
    expect(storedFiles()).not.toContain(sha256(good.content));
    expect(readdirSync(join(artifactsDir(), 'tmp'))).toEqual([]);
  });

  it('lists one detail per problem file and every problem of the form', async () => {
    const res = await postJson({
      project_id: 'invalid',
      release: '',
      dist: 'd'.repeat(65),
      files: [
        { name: 'README', content: 'hello' },
        { name: 'a.js.map', content: map({ version: 2 }) },
        { name: 'a.js.map', content: map() },
        { name: '', content: 'x' },
        { name: 'b.bin', content: '!!', encoding: 'base64' },
        { name: 'c.js.map', content: map() },
      ],
    });
    const body = await expectError(res, 400, 'validation_failed');
    expect(body.error.details).toEqual([
      { path: 'files[4].content', message: 'is not valid base64' },
      { path: 'release', message: 'must not be empty' },
      { path: 'dist', message: 'must be 1-64 characters' },
      { path: 'files[0].type', message: expect.stringMatching(/^cannot tell what kind of file this is/) },
      { path: 'files[1].content', message: 'not a valid source map: version must be 3, got 2' },
      { path: 'files[2].name', message: 'files[1] has this name already' },
      { path: 'files[3].name', message: expect.stringMatching(/^is required/) },
    ]);
    expect((await list('invalid')).data).toEqual([]);
  });

  it('refuses malformed forms: fields of the wrong type, an unknown type, no files, no release', async () => {
    const shape = await expectError(
      await postJson({ project_id: 'invalid', release: 3, files: [{ name: 'a', content: 'x', type: 'elf' }], extra: 1 }),
      400,
      'validation_failed',
    );
    expect(shape.error.details.map((d) => d.path).sort()).toEqual(['', 'files[0].type', 'release']);
    const none = await expectError(await postJson({ project_id: 'invalid', release: 'r', files: [] }), 400, 'validation_failed');
    expect(none.error.details).toEqual([{ path: 'files', message: 'must hold at least one file' }]);
    const multipart = await expectError(
      await svc.api('/v1/sourcemaps', { method: 'POST', body: form({ project_id: 'invalid', colour: 'red' }, []) }),
      400,
      'validation_failed',
    );
    expect(multipart.error.details).toEqual([
      { path: 'colour', message: 'unknown field (fields: project_id, release, dist)' },
      { path: 'release', message: 'is required' },
      { path: 'files', message: 'must hold at least one file' },
    ]);
    await expectError(await svc.api('/v1/sourcemaps', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    await expectError(await svc.api('/v1/sourcemaps', { method: 'POST', body: '{"release":', headers: {} }), 400, 'invalid_json');
    const broken = await svc.api('/v1/sourcemaps', { method: 'POST', body: '--x\r\nnonsense', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    await expectError(broken, 400, 'bad_request');
    expect((await list('invalid')).data).toEqual([]);
  });
});

describe('POST /v1/sourcemaps: size cap (1 MiB here)', () => {
  const payload = (bytes: number) => ({ project_id: 'sizes', release: 'big@1', files: [{ name: 'big.js', content: 'x'.repeat(bytes) }] });

  it('refuses a body over the cap before reading it (Content-Length) and while reading it (chunked)', async () => {
    await expectError(await postJson(payload(MiB + 10)), 413, 'payload_too_large');
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(100 * 1024).fill(120));
        controller.close();
      },
    });
    const res = await svc.api('/v1/sourcemaps', {
      method: 'POST',
      body: chunked,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      duplex: 'half',
    } as RequestInit);
    await expectError(res, 413, 'payload_too_large');
  });

  it('refuses a gzip body that inflates past the cap, in either form, and keeps nothing', async () => {
    await expectError(
      await svc.api('/v1/sourcemaps', { method: 'POST', body: gzipSync(JSON.stringify(payload(3 * MiB))), headers: { 'content-encoding': 'gzip' } }),
      413,
      'payload_too_large',
    );
    const multipart = new Request('http://x', {
      method: 'POST',
      body: form({ project_id: 'sizes', release: 'big@1' }, [{ name: 'big.js', content: 'x'.repeat(3 * MiB) }]),
    });
    const zipped = gzipSync(Buffer.from(await multipart.arrayBuffer()));
    expect(zipped.length).toBeLessThan(MiB);
    const res = await svc.api('/v1/sourcemaps', {
      method: 'POST',
      body: zipped,
      headers: { 'content-type': multipart.headers.get('content-type') as string, 'content-encoding': 'gzip' },
    });
    await expectError(res, 413, 'payload_too_large');
    expect((await list('sizes')).data).toEqual([]);
    expect(readdirSync(join(artifactsDir(), 'tmp'))).toEqual([]);
  });

  it('takes a body just under the cap', async () => {
    expect((await created(await postJson(payload(MiB - 1000)))).files[0].size).toBe(MiB - 1000);
  });
});

describe('idempotence', () => {
  it('answers the existing bundle for an identical upload, and stores a shared content once', async () => {
    const upload = { project_id: 'idem', release: 'idem@1', files: [{ name: '~/a.js.map', content: map({ file: 'idem' }) }] };
    const first = await created(await postJson(upload));
    const again = await created(await postJson(upload));
    expect(again).toEqual(first);
    const other = await created(await postJson({ ...upload, release: 'idem@2' }));
    expect(other.id).not.toBe(first.id);
    expect(storedFiles().filter((f) => f === sha256(map({ file: 'idem' })))).toHaveLength(1);
    expect((await list('idem')).data.map((b: any) => b.id)).toEqual([other.id, first.id]);
  });
});

describe('GET /v1/sourcemaps', () => {
  it('pages newest first and filters by release and dist', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const files = [{ name: `~/p${i}.js`, content: `p${i}()` }];
      ids.push((await created(await postJson({ project_id: 'paging', release: `page@${i % 2}`, dist: i < 2 ? 'a' : 'b', files }))).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Record<string, any> = await list('paging', `&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((b: any) => b.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect((await list('paging', '&release=page@1')).data.map((b: any) => b.id)).toEqual([ids[3], ids[1]]);
    expect((await list('paging', '&dist=a')).data.map((b: any) => b.id)).toEqual([ids[1], ids[0]]);
    expect((await list('paging', '&release=page@0&dist=b')).data.map((b: any) => b.id)).toEqual([ids[4], ids[2]]);
    await expectError(await svc.api('/v1/sourcemaps?project_id=paging&cursor=nope'), 400, 'invalid_parameter');
    await expectError(await svc.api('/v1/sourcemaps?project_id=paging&limit=0'), 400, 'invalid_parameter');
  });
});

describe('DELETE /v1/sourcemaps/{id}', () => {
  it('deletes the bundle; a file no other bundle holds leaves the disk, a shared one stays', async () => {
    const only = 'only()';
    const shared = 'shared()';
    const a = await created(
      await postJson({
        project_id: 'deletes',
        release: 'del@1',
        files: [
          { name: 'only.js', content: only },
          { name: 'shared.js', content: shared },
        ],
      }),
    );
    const b = await created(await postJson({ project_id: 'deletes', release: 'del@2', files: [{ name: 'shared.js', content: shared }] }));
    const res = await svc.api(`/v1/sourcemaps/${a.id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await svc.api(`/v1/sourcemaps/${a.id}`), 404, 'not_found');
    await expectError(await svc.api(`/v1/sourcemaps/${a.id}`, { method: 'DELETE' }), 404, 'not_found');
    expect(storedFiles()).not.toContain(sha256(only));
    expect(storedFiles()).toContain(sha256(shared));
    expect((await list('deletes')).data.map((x: any) => x.id)).toEqual([b.id]);
    expect((await svc.api(`/v1/sourcemaps/${b.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(storedFiles()).not.toContain(sha256(shared));
  });
});

describe('auth', () => {
  let bundleId: string;
  beforeAll(async () => {
    bundleId = (await created(await postJson({ project_id: 'other', release: 'auth@1', files: [{ name: 'x.js', content: 'auth()' }] }))).id;
  });

  it('needs a key', async () => {
    await expectError(await svc.api('/v1/sourcemaps', { method: 'POST', body: '{}', key: null }), 401, 'unauthorized');
    await expectError(await svc.api('/v1/sourcemaps?project_id=shop', { key: null }), 401, 'unauthorized');
    await expectError(await svc.api(`/v1/sourcemaps/${bundleId}`, { key: null }), 401, 'unauthorized');
  });

  it('an organization key must name the project; a project key may omit it and cannot name another', async () => {
    const files = [{ name: 'x.js', content: 'scope()' }];
    const missing = await expectError(await postJson({ release: 'auth@2', files }), 400, 'invalid_parameter');
    expect(missing.error.details).toEqual([{ path: 'project_id', message: 'is required with an organization key' }]);
    await expectError(await svc.api('/v1/sourcemaps'), 400, 'invalid_parameter');
    expect((await created(await postJson({ release: 'auth@2', files }, shopKey))).project_id).toBe('shop');
    await expectError(await postJson({ project_id: 'other', release: 'auth@2', files: [{ name: 'x.js', content: 'forbidden()' }] }, shopKey), 403, 'forbidden');
    await expectError(await svc.api('/v1/sourcemaps?project_id=other', { key: shopKey }), 403, 'forbidden');
    await expectError(await postJson({ project_id: 'nope', release: 'auth@2', files }), 404, 'not_found');
    expect(storedFiles()).not.toContain(sha256('forbidden()'));
  });

  it('answers 404 for a bundle of another project or dataset, and deletes nothing', async () => {
    await expectError(await svc.api(`/v1/sourcemaps/${bundleId}`, { key: shopKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/sourcemaps/${bundleId}`, { method: 'DELETE', key: shopKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/sourcemaps/${bundleId}`, { key: svc.testKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/sourcemaps/${bundleId}`, { method: 'DELETE', key: svc.testKey }), 404, 'not_found');
    expect((await list('other')).data.map((b: any) => b.id)).toContain(bundleId);
    expect((await getJson('/v1/sourcemaps?project_id=other', svc.testKey)).data).toEqual([]);
  });
});

describe('what symbolication finds (artifactsOf(host))', () => {
  it('finds uploaded files by debug id across releases and by name within release and dist, and reads them', async () => {
    const lookup = artifactsOf(svc.service.host);
    const content = map({ debugId: DEBUG_ID, file: 'lookup' });
    await created(await postJson({ project_id: 'shop', release: 'lookup@1', dist: 'web', files: [{ name: '~/static/lookup.js.map', content }] }));
    const scope = { dataset: 'live' as const, projectId: 'shop', release: 'another@9', dist: null };
    const byId = await lookup.byDebugId(scope, DEBUG_ID, ['source_map']);
    expect(byId.map((f) => f.sha256)).toContain(sha256(content));
    const byName = await lookup.byNames(
      { ...scope, release: 'lookup@1', dist: 'web' },
      ['https://x.example/static/lookup.js.map', '~/static/lookup.js.map'],
      ['source_map'],
    );
    expect(byName.map((f) => f.name)).toEqual(['~/static/lookup.js.map']);
    expect((await lookup.read(byName[0])).toString()).toBe(content);
    expect(await lookup.byNames({ ...scope, release: 'lookup@1', dist: null }, ['~/static/lookup.js.map'], ['source_map'])).toEqual([]);
  });
});

describe('retention', () => {
  it('deletes bundles older than retention.artifacts_days, and their files', async () => {
    const bundle = await created(await postJson({ project_id: 'expiry', release: 'old@1', files: [{ name: 'old.js', content: 'expiring()' }] }));
    await svc.service.runRetention({ artifacts_days: 10 });
    expect((await getJson(`/v1/sourcemaps/${bundle.id}`)).id).toBe(bundle.id); // created today: kept
    const result = await svc.service.runRetention({ artifacts_days: 10 }, Date.now() + 11 * 24 * 3600 * 1000);
    expect(result.deletedRows['artifacts:artifact_bundles']).toBeGreaterThan(0);
    await expectError(await svc.api(`/v1/sourcemaps/${bundle.id}`), 404, 'not_found');
    expect(existsSync(join(artifactsDir(), sha256('expiring()').slice(0, 2), sha256('expiring()')))).toBe(false);
  });
});

describe('service.artifacts.path', () => {
  it('takes a relative path relative to data_dir (FAULTLINE_ARTIFACTS_DIR)', async () => {
    const other = await startService({ env: { FAULTLINE_ARTIFACTS_DIR: 'blobs' } });
    try {
      const content = 'elsewhere()';
      const res = await other.api('/v1/sourcemaps', {
        method: 'POST',
        body: JSON.stringify({ project_id: 'default', release: 'r', files: [{ name: 'e.js', content }] }),
      });
      expect(res.status).toBe(201);
      expect(readFileSync(join(other.dataDir, 'blobs', sha256(content).slice(0, 2), sha256(content)), 'utf8')).toBe(content);
      expect(existsSync(join(other.dataDir, 'artifacts'))).toBe(false);
    } finally {
      await other.stop();
    }
  });
});

describe('OpenAPI', () => {
  it('describes the routes, both upload forms among them', async () => {
    const doc = (await (await fetch(`${svc.baseUrl}/v1/openapi.json`)).json()) as Record<string, any>;
    expect(Object.keys(doc.paths['/v1/sourcemaps']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/sourcemaps/{id}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/v1/sourcemaps'].post.requestBody.content)).toEqual(['multipart/form-data', 'application/json']);
    expect(doc.paths['/v1/sourcemaps'].post.requestBody.content['application/json'].schema.required).toEqual(['release', 'files']);
    expect(Object.keys(doc.paths['/v1/sourcemaps'].post.responses)).toContain('201');
  });
});
