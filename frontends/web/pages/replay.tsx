// The replay page: rrweb-player (a static asset built at install time) plays the stored segments;
// error bookmarks jump to their moment. Without the replays store, or for an unknown replay, it
// says so. The player is the one part of the app that needs JavaScript.
import { Fragment, h } from '../jsx.js';
import type { ReplayMeta } from '../replays.js';
import { Page, type Viewer } from './layout.js';

export function ReplayPage({ viewer, replayId, replay, reason }: { viewer: Viewer; replayId: string; replay?: ReplayMeta; reason?: string }) {
  return (
    <Page
      viewer={viewer}
      title={`Replay ${replayId}`}
      head={
        replay && (
          <>
            <link rel="stylesheet" href="/assets/rrweb-player.css" />
            <script type="module" src="/assets/replay.js" />
          </>
        )
      }
    >
      <h1>
        Replay <code>{replayId}</code>
      </h1>
      {!replay ? (
        <p class="empty" id="no-replay">
          No replay to show: {reason}
        </p>
      ) : (
        <>
          <dl class="pairs">
            <dt>Started</dt>
            <dd>{replay.started_at}</dd>
            <dt>Duration</dt>
            <dd>{Math.round(replay.duration_ms / 1000)} s</dd>
            <dt>Segments</dt>
            <dd>{replay.segment_count}</dd>
            <dt>Pages</dt>
            <dd>{replay.urls.join(', ')}</dd>
          </dl>
          <div id="player" data-replay={replay.id} data-segments={String(replay.segment_count)} aria-label="Replay player">
            <noscript>The replay player needs JavaScript.</noscript>
          </div>
          {replay.error_bookmarks.length > 0 && (
            <section aria-labelledby="bookmarks">
              <h2 id="bookmarks">Errors in this replay</h2>
              <ol>
                {replay.error_bookmarks.map((b) => (
                  <li>
                    <button type="button" class="bookmark" data-offset={String(b.offset_ms)}>
                      {`${Math.round(b.offset_ms / 1000)} s`}
                    </button>{' '}
                    <a href={`/events/${encodeURIComponent(b.event_id)}`}>{b.title}</a>
                  </li>
                ))}
              </ol>
            </section>
          )}
        </>
      )}
    </Page>
  );
}
