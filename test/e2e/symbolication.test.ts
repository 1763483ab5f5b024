// The symbolication processor in the real service (default configuration): an event posted with
// the minified frames of a real bundle reads back symbolicated, with the frames as sent beside them
// and the issue grouped on the original names; an event whose map is missing says so.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../src/records/event.js';
import { apiFor, expectUploaded, uploadJson } from '../support/symbolication.js';
import { startService, type TestService } from '../support/service.js';
import { BUNDLE_URL, bundle, framesOf, load, markers, removeSources, writeSources } from '../processors/symbolication/fixture.js';

const RELEASE = 'shop@2.0.0';
let svc: TestService;
let dir: string;
let frames: StackFrame[];

beforeAll(async () => {
  dir = writeSources();
  const app = await bundle(dir);
  // What a browser SDK sends: the bundle's frames as the runtime reported them.
  frames = framesOf(() => load(app.code).run([{ price: 3 }]))
    .frames.filter((f) => f.abs_path === BUNDLE_URL)
    .map(({ abs_path, filename, lineno, colno, function: fn }) => ({ abs_path, filename, lineno, colno, ...(fn && { function: fn }) }));
  svc = await startService();
  // Uploaded as a user would, through POST /v1/sourcemaps, into the service's artifacts extension.
  await expectUploaded(
    uploadJson(apiFor(svc.baseUrl, svc.liveKey), { project_id: 'default', release: RELEASE }, [
      { name: '~/static/js/app.min.js', content: app.code },
      { name: '~/static/js/app.min.js.map', content: app.map },
    ]),
  );
});
afterAll(async () => {
  await svc?.stop();
  removeSources(dir);
});

/** The event document GET /v1/events/{id} returns (the fields this test reads). */
interface EventDocument {
  exception: { stacktrace: StackFrame[]; raw_stacktrace: StackFrame[] };
  culprit: string;
  processing_errors: { type: string; path: string; message: string }[];
}

async function roundTrip(release: string): Promise<EventDocument> {
  const id = randomUUID();
  const body = {
    id,
    timestamp: new Date().toISOString(),
    environment: 'production',
    release,
    platform: 'javascript',
    exception: { type: 'RangeError', value: 'discount factor 2 is too large for 3', stacktrace: frames },
  };
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  const got = await svc.api(`/v1/events/${id}`);
  expect(got.status).toBe(200);
  return (await got.json()) as EventDocument;
}

describe('symbolication in the service', () => {
  it('GET /v1/events/{id} shows the original frames, the frames as sent, and the culprit from the source', async () => {
    const event = await roundTrip(RELEASE);
    const throwAt = markers().get('throw');
    expect(event.exception.stacktrace.map((f) => f.function)).toEqual(['run', 'checkout', 'applyDiscount']);
    expect(event.exception.stacktrace.at(-1)).toMatchObject({
      filename: 'src/pricing.ts',
      lineno: throwAt?.line,
      colno: (throwAt?.column ?? 0) + 1,
      pre_context: expect.any(Array),
    });
    expect(event.exception.raw_stacktrace).toEqual(frames);
    expect(event.culprit).toBe('applyDiscount (src/pricing.ts)');
    expect(event.processing_errors).toEqual([]);
    const metrics = await (await svc.api('/metrics', { key: null })).text();
    expect(metrics).toMatch(/faultline_symbolication_frames_total\{processor="symbolication",platform="javascript",result="symbolicated"\} 3/);
  });

  it('an event of a release without its map keeps its frames and says why', async () => {
    const event = await roundTrip('shop@9.9.9');
    expect(event.exception.stacktrace).toEqual(frames);
    expect(event.processing_errors).toEqual([
      { type: 'missing_source_map', path: 'exception.stacktrace[0]', message: expect.stringContaining(`no source map for ${BUNDLE_URL}`) },
    ]);
  });
});
