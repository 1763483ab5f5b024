// Issue #14's "Done when": a page recorded with the real rrweb in headless Chromium and Firefox
// sends its segments (all three body forms) and an error event carrying the replay id; the
// replay's metadata and error bookmark come back right, and rrweb's Replayer, fed the stored
// segments, rebuilds the page as the user left it. The browsers must be installed (.ci/run
// installs them); without them these tests fail and say how to install them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.js';
import { recordAndReplay, type RecordingReport } from '../support/replay-browser.js';

let svc: TestService;
const runs: Record<string, RecordingReport> = {};

beforeAll(async () => {
  svc = await startService();
  const browsers = ['chromium', 'firefox'] as const;
  const results = await Promise.all(
    browsers.map((name) => recordAndReplay(name, svc.baseUrl, svc.liveKey, `rpl_${name}_${randomUUID().slice(0, 8)}`, randomUUID(), 60_000)),
  );
  browsers.forEach((name, i) => (runs[name] = results[i]));
}, 120_000);
afterAll(() => svc?.stop());

describe.each(['chromium', 'firefox'])('a session recorded in %s', (name) => {
  it('is stored in three segments, with the metadata merged', async () => {
    const run = runs[name];
    expect(run.statuses).toEqual([202, 202, 202, 202]);
    const replay = (await (await svc.api(`/v1/replays/${run.replayId}`)).json()) as Record<string, unknown> & {
      streams: unknown[];
      processing_errors: Array<{ type: string; message: string }>;
    };
    expect(replay).toMatchObject({
      id: run.replayId,
      project_id: 'default',
      segment_count: 3,
      started_at: new Date(run.firstEventAt).toISOString(),
      environment: 'browser-test',
      release: 'shop@1.0.0',
      user: { id: 'ada' },
      error_ids: [run.errorEventId],
    });
    expect(replay.urls).toEqual(expect.arrayContaining([expect.stringMatching(/\/checkout$/), expect.stringMatching(/\/checkout\/step-2$/)]));
    // The only notes: where the scrubbing processor masked what was typed.
    expect(replay.processing_errors.filter((note) => note.type !== 'scrubbed')).toEqual([]);
    expect(replay.processing_errors).toContainEqual(expect.objectContaining({ type: 'scrubbed', message: 'scrubbed by mask_all_inputs' }));
  });

  it('bookmarks the error at its offset from the start', async () => {
    const run = runs[name];
    const replay = (await (await svc.api(`/v1/replays/${run.replayId}`)).json()) as { error_bookmarks: Array<Record<string, unknown>> };
    expect(replay.error_bookmarks).toEqual([
      expect.objectContaining({
        event_id: run.errorEventId,
        offset_ms: run.errorAt - run.firstEventAt,
        link: `http://faultline.test/v1/events/${run.errorEventId}`,
      }),
    ]);
    expect(String(replay.error_bookmarks[0].title)).toMatch(/TypeError/);
  });

  it("replays in rrweb's Replayer: the rebuilt page shows the page's text, and what was typed masked (the scrubbing processor's mask_all_inputs)", () => {
    const run = runs[name];
    expect(run.typed).toBe('Ada Lovelace!');
    expect(run.replayed).toEqual({ input: '*** *********', greeting: 'Hello Ada Lovelace', url: expect.stringMatching(/\/checkout\/step-2$/) });
  });
});
