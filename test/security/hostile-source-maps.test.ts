// Issue 23, item 5: a 201-byte index map whose section sits at generated line 20,000,000 took a
// symbolication worker to 1.3 GB and seconds of work while other tenants' events waited. It is
// refused at upload with its path; a map that gets past upload anyway (stored before the bound, or
// simply huge) ends only its own worker, and another event still gets symbolicated.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GENERATED_LINES } from '../../src/records/source-map.js';
import { WorkerPool } from '../../processors/symbolication/pool.js';
import { expectError } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';
import { BUNDLE_URL, bundle, framesOf, load, removeSources, writeSources, type Bundle } from '../processors/symbolication/fixture.js';
import { itemOf, makeEvent, processorsShutDownAfterEach, SCOPE, symbolicate, TENANT, uploadedApp } from '../processors/symbolication/helpers.js';

const HOSTILE = JSON.stringify({
  version: 3,
  sections: [{ offset: { line: 20_000_000, column: 0 }, map: { version: 3, sources: ['a.js'], names: [], mappings: 'AAAA;AACA' } }],
});
const SMALL_MAP = '{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}';

describe('at upload', () => {
  let svc: TestService;
  let projectId: string;
  beforeAll(async () => {
    svc = await startService();
    const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Array<{ id: string }> }).data;
    projectId = project.id;
  });
  afterAll(() => svc?.stop());

  const upload = (content: string) =>
    svc.api('/v1/sourcemaps', {
      method: 'POST',
      body: JSON.stringify({ project_id: projectId, release: 'web@1', files: [{ name: '~/app.js.map', content }] }),
    });

  it('the 201-byte index map with a section at line 20,000,000 is a 400 naming the offset', async () => {
    expect(HOSTILE.length).toBeLessThan(210);
    const body = await expectError(await upload(HOSTILE), 400, 'validation_failed');
    expect(body.error.details).toEqual([{ path: 'files[0].content', message: expect.stringMatching(/sections\[0\]\.offset\.line .*at most 999999/) }]);
  });

  it('so are mappings with more generated lines than the bound, and a column offset past its bound', async () => {
    const lines = JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: `AAAA${';'.repeat(MAX_GENERATED_LINES)}` });
    const tooMany = await expectError(await upload(lines), 400, 'validation_failed');
    expect(tooMany.error.details[0].message).toMatch(/mappings: describes more than 1000000 generated lines/);
    const nested = JSON.stringify({
      version: 3,
      sections: [{ offset: { line: 999_000, column: 0 }, map: { version: 3, sources: ['a.js'], names: [], mappings: `AAAA${';'.repeat(2000)}` } }],
    });
    expect((await expectError(await upload(nested), 400, 'validation_failed')).error.details[0].message).toMatch(/sections\[0\]\.map\.mappings/);
    const column = JSON.stringify({ version: 3, sections: [{ offset: { line: 0, column: 2 ** 40 }, map: JSON.parse(SMALL_MAP) }] });
    expect((await expectError(await upload(column), 400, 'validation_failed')).error.details[0].message).toMatch(/sections\[0\]\.offset\.column/);
    expect((await upload(SMALL_MAP)).status).toBe(201);
  });

  /** A valid map of about `mib` MiB: many segments over a few thousand lines, as a bundler writes them. */
  function largeMap(mib: number, line = 0): string {
    const mappingsLine = `${'AAAA,'.repeat(2000)}AAAA`;
    const lines = Math.ceil((mib * 1024 * 1024) / (mappingsLine.length + 1));
    const map = { version: 3, sources: ['a.js'], names: [], mappings: Array.from({ length: lines }, () => mappingsLine).join(';') };
    return line === 0 ? JSON.stringify(map) : JSON.stringify({ version: 3, sections: [{ offset: { line, column: 0 }, map }] });
  }

  const multipart = (name: string, content: string) => {
    const body = new FormData();
    body.append('project_id', projectId);
    body.append('release', 'web@2');
    body.append('file', new Blob([content], { type: 'application/json' }), name);
    return svc.api('/v1/sourcemaps', { method: 'POST', body });
  };

  it('a large valid map is checked off the event loop', async () => {
    const content = largeMap(40);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const res = await multipart('~/big.js.map', content);
    delay.disable();
    expect(res.status).toBe(201);
    // Generous: checking 40 MiB on the loop held it for seconds.
    expect(delay.max / 1e6).toBeLessThan(400);
  });

  it('a large hostile map is refused with its path from the worker that checked it', async () => {
    const res = await multipart('~/big-hostile.js.map', largeMap(2, 999_990));
    const body = await expectError(res, 400, 'validation_failed');
    expect(body.error.details[0].message).toMatch(/sections\[0\]\.map\.mappings: describes more than 1000000 generated lines/);
  });
});

describe('in the parsing workers', () => {
  it('a hostile map that got past upload ends its own worker, and the next parse succeeds on a new one', async () => {
    const pool = new WorkerPool(1, { memoryMb: 128, timeoutMs: 5_000 });
    try {
      const started = Date.now();
      const [hostile, next] = await Promise.allSettled([pool.run('sourcemap', Buffer.from(HOSTILE)), pool.run('sourcemap', Buffer.from(SMALL_MAP))]);
      expect(hostile.status).toBe('rejected');
      expect(next).toMatchObject({ status: 'fulfilled', value: { sources: ['a.js'] } });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await pool.close();
    }
  });

  it('a parse past its time limit is ended', async () => {
    const pool = new WorkerPool(1, { memoryMb: 4096, timeoutMs: 200 });
    try {
      const big = JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: `${'AAAA,'.repeat(2_000_000)}AAAA` });
      await expect(pool.run('sourcemap', Buffer.from(big))).rejects.toThrow(/longer than 200 ms/);
      expect((await pool.run('sourcemap', Buffer.from(SMALL_MAP))).sources).toEqual(['a.js']);
    } finally {
      await pool.close();
    }
  });
});

describe('the per-event budget', () => {
  let dir: string;
  let app: Bundle;
  let appExports: ReturnType<typeof load>;
  beforeAll(async () => {
    dir = writeSources();
    app = await bundle(dir);
    appExports = load(app.code);
  });
  afterAll(() => removeSources(dir));
  const processor = processorsShutDownAfterEach();
  const appFrames = () => framesOf(() => appExports.run([{ price: 3 }])).frames.filter((f) => f.abs_path === BUNDLE_URL);

  it('an event whose files are not ready within event_budget_ms goes on with its frames as received and a processing error', async () => {
    const artifacts = uploadedApp(app);
    let open!: () => void;
    artifacts.gate = new Promise((resolve) => (open = resolve));
    const p = processor(artifacts, { event_budget_ms: 300 });
    const frames = appFrames();
    const started = Date.now();
    const [event] = await symbolicate(p, makeEvent(frames, { release: SCOPE.release ?? undefined }));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(event.exception?.stacktrace).toEqual(frames);
    expect(event.processing_errors).toEqual([expect.objectContaining({ type: 'time_budget_exceeded', path: 'exception.stacktrace[0]' })]);
    // What resolves late is not written into the event that went on.
    open();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(event.exception?.stacktrace).toEqual(frames);
    // The next event, its files now read, is symbolicated.
    const [next] = await symbolicate(p, makeEvent(appFrames(), { release: SCOPE.release ?? undefined }));
    expect(next.processing_errors).toEqual([]);
    expect(next.exception?.stacktrace?.some((f) => f.filename?.includes('src/'))).toBe(true);
  });

  it("another project's map still gets used while a hostile one (past upload) takes its worker down", async () => {
    const artifacts = uploadedApp(app);
    const hostileScope = { ...SCOPE, projectId: 'proj_hostile' };
    artifacts.add(hostileScope, { name: '~/static/js/app.min.js', type: 'minified_source', content: app.code });
    artifacts.add(hostileScope, { name: '~/static/js/app.min.js.map', type: 'source_map', content: HOSTILE });
    const p = processor(artifacts, { worker_memory_mb: 128, parse_timeout_ms: 5_000, event_budget_ms: 1_000 });
    const hostile = makeEvent(appFrames(), { project_id: 'proj_hostile' });
    const other = makeEvent(appFrames());
    const started = Date.now();
    await p.process([itemOf(hostile, { ...TENANT, projectId: 'proj_hostile' }), itemOf(other)]);
    // Both events went on within the budget, whatever the hostile parse was doing.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(hostile.exception?.stacktrace?.some((f) => f.filename?.includes('src/'))).toBe(false);
    expect(hostile.processing_errors.map((e) => e.type)).toContainEqual(expect.stringMatching(/^(?:malformed_source_map|time_budget_exceeded)$/));
    // Once the hostile parse has ended its worker, the other project's events are symbolicated.
    let next = makeEvent(appFrames());
    for (let attempt = 0; attempt < 20; attempt++) {
      next = makeEvent(appFrames());
      await p.process([itemOf(next)]);
      if (next.processing_errors.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(next.processing_errors).toEqual([]);
    expect(next.exception?.stacktrace?.some((f) => f.filename?.includes('src/'))).toBe(true);
  });
});
