// The replays list: newest first, filtered by environment, release, user, URL, duration and
// whether errors happened in them, each row a link to the player.
import { Fragment, h } from '../jsx.js';
import type { ReplaySummary } from '../../../extensions/query/index.js';
import { Page, TableHead, type Viewer } from './layout.js';
import { FilterForm, formatBytes, formatDuration, NextPage, ProjectPicker, When, type FilterField } from './parts.js';

export interface ReplaysView {
  viewer: Viewer;
  projects: string[];
  project: string;
  filters: FilterField[];
  query: URLSearchParams;
  replays: ReplaySummary[];
  nextCursor: string | null;
  error?: string;
  unavailable?: string;
}

export function ReplaysPage(v: ReplaysView) {
  return (
    <Page viewer={v.viewer} title="Replays" section="/replays">
      <h1>Session replays of {v.project}</h1>
      <ProjectPicker action="/replays" projects={v.projects} current={v.project} />
      {v.unavailable ? (
        <p class="empty">{v.unavailable}</p>
      ) : (
        <>
          <FilterForm action="/replays" fields={v.filters} hidden={{ project: v.project }} />
          {v.error && (
            <p class="error" role="alert">
              {v.error}
            </p>
          )}
          {v.replays.length === 0 ? (
            <p class="empty">No replays match. @sentry/browser with replayIntegration() sends them.</p>
          ) : (
            <table class="list replays">
              <TableHead cols={['Replay', 'Started', 'Duration', 'User', 'Errors', 'Environment', 'Release', 'Size']} />
              <tbody>
                {v.replays.map((r) => (
                  <tr>
                    <td>
                      <a href={`/replays/${encodeURIComponent(r.id)}`}>{r.urls[0] ?? r.id}</a>
                      <br />
                      <code class="muted">{r.id}</code>
                    </td>
                    <td>
                      <When at={r.started_at} />
                    </td>
                    <td>{formatDuration(r.duration_ms)}</td>
                    <td>{r.user?.email ?? r.user?.id ?? '—'}</td>
                    <td>{r.error_ids.length > 0 ? <span class="badge error">{r.error_ids.length}</span> : '0'}</td>
                    <td>{r.environment ?? '—'}</td>
                    <td>{r.release ?? '—'}</td>
                    <td>{formatBytes(r.size_bytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <NextPage path="/replays" query={v.query} cursor={v.nextCursor} />
        </>
      )}
    </Page>
  );
}
