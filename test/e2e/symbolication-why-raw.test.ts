// Frames that stay raw say why (issue 29): when the event's release has uploads but none matches a
// frame's file, every such frame gets a `missing_source_map` processing error naming the file and
// the names tried — also for frames of a file on disk, which stay quiet in a release without
// uploads — and the issue page shows it beside the frame.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../src/records/event.js';
import { startService, type TestService } from '../support/service.js';
import {
  appBuilds,
  buildFiles,
  expectUnsymbolicated,
  expectUploaded,
  framesOf,
  jsEvent,
  postEvent,
  getEvent,
  runInNode,
  uploadJson,
  type AppReport,
} from '../support/symbolication.js';
import { createUser, WebClient } from '../support/web.js';

let svc: TestService;
let report: AppReport;
let frames: StackFrame[];
let bundlePath: string;

beforeAll(async () => {
  const build = appBuilds().esbuild;
  [svc, report] = await Promise.all([startService(), runInNode(build)]);
  frames = framesOf(report);
  bundlePath = `${build.dist}/${build.bundle}`;
  // The release's uploads are another file: nothing matches the frames' bundle.
  const [bundle, map] = buildFiles(build);
  await expectUploaded(
    uploadJson(svc.api, { project_id: 'default', release: 'shop@4.0.0' }, [
      { name: '~/static/js/storefront.js', content: bundle.content },
      { name: '~/static/js/storefront.js.map', content: map.content },
    ]),
  );
});

afterAll(async () => {
  await svc?.stop();
});

describe('frames that stay raw say why', () => {
  it('every frame of the bundle gets its own note naming the file and the candidates tried', async () => {
    const { id, issueId } = await postEvent(svc.api, jsEvent(report, 'shop@4.0.0', {}, frames));
    const event = await getEvent(svc.api, id);
    expectUnsymbolicated(event, frames, 'missing_source_map');
    const bundleFrames = frames.flatMap((frame, i) => (frame.abs_path === bundlePath ? [i] : []));
    expect(bundleFrames.length).toBeGreaterThan(3);
    const notes = event.processing_errors as Array<{ type: string; path: string; message: string }>;
    expect(notes.map((note) => note.path).sort()).toEqual(bundleFrames.map((i) => `exception.stacktrace[${i}]`).sort());
    for (const note of notes) {
      expect(note.type).toBe('missing_source_map');
      expect(note.message).toContain(`no source map for ${bundlePath}`);
      // The path, its `~` form, every `~/` suffix of it (longest first), then the file name.
      expect(note.message).toContain(`tried ${bundlePath}, ~${bundlePath}, `);
      expect(note.message).toMatch(/, ~\/dist\/app\.min\.js, ~\/app\.min\.js, app\.min\.js/);
      expect(note.message).toContain('the release has uploads, none of them matched');
    }

    // The issue page shows the note beside the frame.
    const password = await createUser(svc, 'dev@example.com', 'member');
    const browser = new WebClient(svc.baseUrl);
    await browser.signIn('dev@example.com', password, `/issues/${issueId}`);
    const html = await (await browser.fetch(`/issues/${issueId}?event=${id}`)).text();
    const frameItems = html.split('<li class="frame ').slice(1);
    const noted = frameItems.filter((item) => item.includes('class="frame-note"'));
    expect(noted).toHaveLength(bundleFrames.length);
    for (const item of noted) expect(item).toContain('no source map for');
  });

  it('a release without uploads keeps frames of a file on disk quiet, as before', async () => {
    const event = await getEvent(svc.api, (await postEvent(svc.api, jsEvent(report, 'shop@4.0.1', {}, frames))).id);
    expectUnsymbolicated(event, frames, null);
  });
});
