// GET /replays/{id}: the replay player (its own CSP: rrweb rebuilds the page in a sandboxed frame),
// and GET /replays/{id}/segments/{n}, the segments the player fetches.
import type { HttpHost } from '../../../src/http/host.js';
import type { PageKit } from '../kit.js';
import { ReplayPage } from '../pages/replay.js';
import { REPLAY_CSP } from '../security.js';

export function registerReplayPage(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/replays/:id',
    kit.view(async (event, s) => {
      const id = decodeURIComponent(event.context.params?.id ?? '');
      if (!kit.replays) return kit.html(ReplayPage({ viewer: s.viewer, replayId: id, reason: 'this service has no replay store.' }));
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const replay = await kit.replays.get(s.session.dataset, projectIds, id);
      if (!replay) return kit.html(ReplayPage({ viewer: s.viewer, replayId: id, reason: 'no replay with this id was stored.' }), 404);
      return kit.html(ReplayPage({ viewer: s.viewer, replayId: id, replay }), 200, {}, REPLAY_CSP);
    }),
  );

  http.page('GET', '/replays/:id/segments/:n', async (event) => {
    const s = await kit.signedIn(event).catch(() => undefined);
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
    if (!s) return new Response('{"error":"sign in"}', { status: 401, headers });
    const n = Number(event.context.params?.n);
    if (!kit.replays || !Number.isInteger(n) || n < 0) return new Response('[]', { status: 404, headers });
    const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
    const events = await kit.replays.segment(s.session.dataset, projectIds, decodeURIComponent(event.context.params?.id ?? ''), n);
    return new Response(JSON.stringify(events ?? []), { status: events ? 200 : 404, headers });
  });
}
