// The traces list: newest first, filtered by environment, release, service, duration and status,
// each row a link to its waterfall.
import { Fragment, h } from '../jsx.js';
import type { TraceSummary } from '../../../extensions/query/index.js';
import { Page, TableHead, type Viewer } from './layout.js';
import { FilterForm, formatDuration, NextPage, ProjectPicker, When, type FilterField } from './parts.js';

export interface TracesView {
  viewer: Viewer;
  projects: string[];
  project: string;
  filters: FilterField[];
  query: URLSearchParams;
  traces: TraceSummary[];
  nextCursor: string | null;
  error?: string;
  /** Set when no exporter of the service stores traces. */
  unavailable?: string;
}

export function TracesPage(v: TracesView) {
  return (
    <Page viewer={v.viewer} title="Traces" section="/traces">
      <h1>Traces of {v.project}</h1>
      <ProjectPicker action="/traces" projects={v.projects} current={v.project} />
      {v.unavailable ? (
        <p class="empty">{v.unavailable}</p>
      ) : (
        <>
          <FilterForm action="/traces" fields={v.filters} hidden={{ project: v.project }} />
          {v.error && (
            <p class="error" role="alert">
              {v.error}
            </p>
          )}
          {v.traces.length === 0 ? (
            <p class="empty">No traces match. Send spans with OTLP (port 4318) or a Sentry SDK with tracing on.</p>
          ) : (
            <table class="list traces">
              <TableHead cols={['Root span', 'Service', 'Started', 'Duration', 'Spans', 'Errors', 'Environment', 'Release']} />
              <tbody>
                {v.traces.map((t) => (
                  <tr class={t.error_span_count > 0 ? 'error' : undefined}>
                    <td>
                      <a href={`/traces/${encodeURIComponent(t.trace_id)}`}>{t.root_name}</a>
                      <br />
                      <code class="muted">{t.trace_id}</code>
                    </td>
                    <td>{t.services.length > 1 ? `${t.root_service} +${t.services.length - 1}` : t.root_service}</td>
                    <td>
                      <When at={t.start_time} />
                    </td>
                    <td>{formatDuration(t.duration_ms)}</td>
                    <td>{t.span_count}</td>
                    <td>{t.error_span_count > 0 ? <span class="badge error">{t.error_span_count}</span> : '0'}</td>
                    <td>{t.environment ?? '—'}</td>
                    <td>{t.release ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <NextPage path="/traces" query={v.query} cursor={v.nextCursor} />
        </>
      )}
    </Page>
  );
}
