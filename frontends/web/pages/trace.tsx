// The trace waterfall: one row per span, each under its parent (siblings in start order), indented
// by depth, with its op and kind; a bar placed on the trace's timeline (SVG attributes, no inline
// style), services told apart by colour, error spans marked, attributes in a <details> that opens
// on click; the trace's error events listed by title.
import { Fragment, h } from '../jsx.js';
import { spanTree } from '../span-tree.js';
import { Page, type Viewer, TableHead } from './layout.js';

export interface TraceSpan {
  span_id: string;
  parent_span_id: string;
  name: string;
  service_name: string;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  status: string;
  status_message?: string;
  kind?: string;
  attributes?: Record<string, unknown>;
}

export interface TraceRecord {
  trace_id: string;
  root_service: string;
  duration_ms: number;
  span_count: number;
  services: string[];
  error_event_ids: string[];
  truncated: boolean;
  spans: TraceSpan[];
}

const PALETTE = ['#2f6fdf', '#1a8a5a', '#b5651d', '#8a3ab9', '#c23b6b', '#0f7f8f', '#6b6b00', '#5a5aa0'];

/** What the page knows of an error event of the trace: its issue and title, when it was found. */
export interface TraceEventLink {
  issueId?: string;
  title?: string;
}

export function TracePage({ viewer, trace, events }: { viewer: Viewer; trace: TraceRecord; events: Map<string, TraceEventLink> }) {
  const starts = trace.spans.map((s) => BigInt(s.start_time_unix_nano));
  const ends = trace.spans.map((s) => BigInt(s.end_time_unix_nano));
  const t0 = starts.reduce((a, b) => (b < a ? b : a), starts[0] ?? 0n);
  const t1 = ends.reduce((a, b) => (b > a ? b : a), ends[0] ?? 0n);
  const total = Number(t1 - t0) || 1;
  const color = (service: string) => PALETTE[Math.max(0, trace.services.indexOf(service)) % PALETTE.length];
  const linked = new Set(trace.spans.filter((s) => s.attributes && Object.keys(s.attributes).some((k) => k.startsWith('exception.'))).map((s) => s.span_id));
  return (
    <Page viewer={viewer} title={`Trace ${trace.trace_id}`}>
      <h1>
        Trace <code>{trace.trace_id}</code>
      </h1>
      <dl class="pairs">
        <dt>Root service</dt>
        <dd>{trace.root_service}</dd>
        <dt>Duration</dt>
        <dd>{trace.duration_ms} ms</dd>
        <dt>Spans</dt>
        <dd>
          {trace.span_count}
          {trace.truncated && ` (the first ${trace.spans.length} shown)`}
        </dd>
      </dl>
      <ul class="legend" aria-label="Services">
        {trace.services.map((service) => (
          <li>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" fill={color(service)} />
            </svg>{' '}
            {service}
          </li>
        ))}
      </ul>
      {trace.error_event_ids.length > 0 && (
        <section aria-labelledby="trace-errors">
          <h2 id="trace-errors">Error events in this trace</h2>
          <ul>
            {trace.error_event_ids.map((id) => {
              const found = events.get(id);
              return (
                <li>
                  <a
                    href={found?.issueId ? `/issues/${encodeURIComponent(found.issueId)}?event=${encodeURIComponent(id)}` : `/events/${encodeURIComponent(id)}`}
                  >
                    {found?.title ?? `Event ${id}`}
                  </a>{' '}
                  <code class="muted">{id.slice(0, 8)}</code>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      <table class="waterfall">
        <caption class="visually-hidden">Spans, each under its parent, siblings by start time</caption>
        <TableHead cols={['Span', 'Op / kind', 'Service', 'Duration', 'Timeline']} />
        <tbody>
          {spanTree(trace.spans).map(({ span, depth }) => {
            const start = Number(BigInt(span.start_time_unix_nano) - t0);
            const duration = Number(BigInt(span.end_time_unix_nano) - BigInt(span.start_time_unix_nano));
            const x = (start / total) * 1000;
            const w = Math.max(2, (duration / total) * 1000);
            const error = span.status === 'error';
            const op = opOf(span);
            return (
              <tr class={error ? 'span error' : 'span'} data-depth={depth} data-span-id={span.span_id}>
                <td class={`depth-${Math.min(depth, 12)}`}>
                  <details>
                    <summary>
                      {error && <span class="badge error">error</span>} {linked.has(span.span_id) && <span class="badge">exception</span>} {span.name}
                    </summary>
                    <dl class="pairs">
                      <dt>Span id</dt>
                      <dd>
                        <code>{span.span_id}</code>
                      </dd>
                      <dt>Kind</dt>
                      <dd>{span.kind}</dd>
                      <dt>Status</dt>
                      <dd>
                        {span.status}
                        {span.status_message ? `: ${span.status_message}` : ''}
                      </dd>
                      {Object.entries(span.attributes ?? {}).map(([k, val]) => (
                        <>
                          <dt>{k}</dt>
                          <dd>{typeof val === 'string' ? val : JSON.stringify(val)}</dd>
                        </>
                      ))}
                    </dl>
                  </details>
                </td>
                <td class="op">
                  {op && <code>{op}</code>}
                  {op && span.kind && ' · '}
                  {span.kind && span.kind !== 'unspecified' ? span.kind : !op ? span.kind : ''}
                </td>
                <td>{span.service_name}</td>
                <td class="num">{(duration / 1e6).toFixed(duration < 1e7 ? 2 : 0)} ms</td>
                <td class="bar">
                  <svg
                    viewBox="0 0 1000 14"
                    preserveAspectRatio="none"
                    role="img"
                    aria-label={`starts at ${(start / 1e6).toFixed(1)} ms, lasts ${(duration / 1e6).toFixed(1)} ms`}
                  >
                    <rect
                      x={x}
                      y="2"
                      width={w}
                      height="10"
                      rx="2"
                      fill={color(span.service_name)}
                      stroke={error ? '#d00' : 'none'}
                      stroke-width={error ? 3 : 0}
                    />
                  </svg>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Page>
  );
}

/** The span's operation: Sentry's `op` (kept as the `sentry.op` attribute), else OpenTelemetry's conventions. */
function opOf(span: TraceSpan): string | undefined {
  const attributes = span.attributes ?? {};
  for (const key of ['sentry.op', 'op', 'db.system', 'rpc.system', 'messaging.system']) {
    const value = attributes[key];
    if (typeof value === 'string' && value !== '') return key === 'sentry.op' || key === 'op' ? value : `${key.split('.')[0]} ${value}`;
  }
  if (typeof attributes['http.request.method'] === 'string' || typeof attributes['http.method'] === 'string') return 'http';
  return undefined;
}
