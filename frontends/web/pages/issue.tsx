// The issue page, behind every permalink: what the issue is, its status actions, when and in which
// releases it was seen, how often (24 h / 30 d), its tags, and one event in full: the exception
// chain with its symbolicated (or raw) frames and their source lines, breadcrumbs, user, request,
// contexts and processing errors, with links to the older and newer event, the trace and the replay.
import { Fragment, h, type JsxNode } from '../jsx.js';
import type { ErrorEvent, ExceptionInfo, ProcessingError, StackFrame } from '../../../src/records/event.js';
import { type Issue, TAG_SAMPLE } from '../../../extensions/query/index.js';
import { BarChart } from './charts.js';
import type { Assignee } from '../../../extensions/query/issue-triage.js';
import { AssigneePicker } from './issue-assignee.js';
import { Csrf, Page, type Viewer, TableHead } from './layout.js';
import { ContextTables } from './contexts.js';
import { formatDuration, When } from './parts.js';
import { IgnoredUntil, IgnoreUntilForm } from './issue-ignore.js';
import type { IgnoreUntil } from '../../../src/records/ignore-until.js';

export interface IssueView {
  viewer: Viewer;
  issue: Issue;
  event?: ErrorEvent;
  neighbours: { older?: string; newer?: string };
  range: '24h' | '30d';
  counts: number[];
  labels: string[];
  tags: Array<{ key: string; total: number; values: Array<{ value: string; count: number }> }>;
  raw: boolean;
  notice?: string;
  /** While the issue is ignored with a condition: what it waits for. */
  ignoreUntil?: IgnoreUntil;
  /** Whom the issue can be assigned to (the picker). */
  users: Assignee[];
}

const href = (issueId: string, params: Record<string, string | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const query = q.toString();
  return `/issues/${encodeURIComponent(issueId)}${query ? `?${query}` : ''}`;
};

function Context({ frame }: { frame: StackFrame }) {
  if (frame.context_line === undefined || frame.lineno === undefined) return null;
  const pre = frame.pre_context ?? [];
  const post = frame.post_context ?? [];
  const first = frame.lineno - pre.length;
  const lines = [...pre, frame.context_line, ...post];
  return (
    <ol class="context" start={first}>
      {lines.map((line, i) => (
        <li class={first + i === frame.lineno ? 'current' : undefined} aria-current={first + i === frame.lineno ? 'true' : undefined}>
          <code>{line}</code>
        </li>
      ))}
    </ol>
  );
}

/** Processing errors by the index of the frame they point at (`<prefix>.stacktrace[i]`). */
type FrameNotes = Map<number, ProcessingError[]>;

function notesOf(errors: ProcessingError[] | undefined, prefix: string): FrameNotes {
  const notes: FrameNotes = new Map();
  const lead = `${prefix}.stacktrace[`;
  for (const error of errors ?? []) {
    if (!error.path?.startsWith(lead) || !error.path.endsWith(']')) continue;
    const index = Number(error.path.slice(lead.length, -1));
    if (!Number.isInteger(index)) continue;
    const list = notes.get(index);
    if (list) list.push(error);
    else notes.set(index, [error]);
  }
  return notes;
}

function Frame({ frame, notes }: { frame: StackFrame; notes?: ProcessingError[] }) {
  const where = [frame.filename ?? frame.abs_path ?? frame.module ?? '?', frame.lineno, frame.colno].filter((x) => x !== undefined).join(':');
  return (
    <li class={`frame ${frame.in_app ? 'in-app' : 'other'}`}>
      <div class="frame-head">
        <code class="fn">{frame.function ?? '<anonymous>'}</code> <span class="at">at</span> <code class="file">{where}</code>
        {frame.in_app && <span class="badge">in app</span>}
      </div>
      {notes?.map((note) => (
        <p class="frame-note" role="note">
          <span class="badge error">{note.type}</span> {note.message}
        </p>
      ))}
      <Context frame={frame} />
    </li>
  );
}

/** Most recent call first; runs of frames outside the app fold into one <details>. */
function Frames({ frames, notes }: { frames: StackFrame[]; notes: FrameNotes }) {
  const ordered = frames.map((frame, index) => ({ frame, index })).reverse();
  const groups: Array<{ inApp: boolean; frames: Array<{ frame: StackFrame; index: number }> }> = [];
  for (const entry of ordered) {
    const inApp = entry.frame.in_app === true;
    const last = groups[groups.length - 1];
    if (last && last.inApp === inApp) last.frames.push(entry);
    else groups.push({ inApp, frames: [entry] });
  }
  const anyInApp = groups.some((g) => g.inApp);
  return (
    <ol class="frames">
      {groups.map((group) =>
        group.inApp || !anyInApp ? (
          group.frames.map(({ frame, index }) => <Frame frame={frame} notes={notes.get(index)} />)
        ) : (
          <li class="collapsed">
            <details>
              <summary>
                {group.frames.length} other frame{group.frames.length === 1 ? '' : 's'}
              </summary>
              <ol class="frames">
                {group.frames.map(({ frame, index }) => (
                  <Frame frame={frame} notes={notes.get(index)} />
                ))}
              </ol>
            </details>
          </li>
        ),
      )}
    </ol>
  );
}

function chainOf(event: ErrorEvent, raw: boolean): Array<{ exception: ExceptionInfo; frames: StackFrame[] }> {
  const out: Array<{ exception: ExceptionInfo; frames: StackFrame[] }> = [];
  let current: ExceptionInfo | undefined = event.exception;
  let depth = 0;
  while (current && depth < 32) {
    const rawFrames = current.raw_stacktrace ?? (depth === 0 ? event.raw_stacktrace : undefined);
    out.push({ exception: current, frames: (raw && rawFrames) || current.stacktrace || [] });
    current = current.cause;
    depth++;
  }
  return out;
}

function Json({ value }: { value: unknown }) {
  return (
    <pre class="json">
      <code>{JSON.stringify(value, null, 2)}</code>
    </pre>
  );
}

/** A value built by this page (a link, a time), not one from the event. */
const isNode = (v: unknown): v is JsxNode => v instanceof Object && 'type' in v && 'props' in v && BUILT.has(v);
const BUILT = new WeakSet<object>();
/** Marks a node built here, so that Pairs renders it instead of showing it as JSON. */
function built(node: JsxNode): JsxNode {
  BUILT.add(node);
  return node;
}

function Pairs({ entries }: { entries: Array<[string, unknown]> }) {
  return (
    <dl class="pairs">
      {entries
        .filter(([, v]) => v !== undefined && v !== null && v !== '')
        .map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : isNode(v) ? v : <Json value={v} />}</dd>
          </>
        ))}
    </dl>
  );
}

function EventDetails({ v, event }: { v: IssueView; event: ErrorEvent }) {
  const chain = chainOf(event, v.raw);
  const hasRaw = Boolean(event.raw_stacktrace) || chain.some((c) => c.exception.raw_stacktrace);
  return (
    <section aria-labelledby="event-title" class="event">
      <h2 id="event-title">
        Event <code>{event.id}</code>
      </h2>
      <nav aria-label="Events of this issue" class="event-nav">
        {v.neighbours.newer ? <a href={href(v.issue.id, { event: v.neighbours.newer, range: v.range })}>← Newer event</a> : <span>Newest event</span>}
        {' · '}
        {v.neighbours.older ? <a href={href(v.issue.id, { event: v.neighbours.older, range: v.range })}>Older event →</a> : <span>Oldest event</span>}
        {event.trace_id && (
          <>
            {' · '}
            <a href={`/traces/${encodeURIComponent(event.trace_id)}`}>View trace</a>
          </>
        )}
        {event.replay_id && (
          <>
            {' · '}
            <a href={`/replays/${encodeURIComponent(event.replay_id)}`}>View replay</a>
          </>
        )}
      </nav>
      <Pairs
        entries={[
          ['Time', built(<When at={event.timestamp} />)],
          ['Received', built(<When at={event.received_at} />)],
          ['Environment', event.environment],
          [
            'Release',
            event.release &&
              built(<a href={`/releases/${encodeURIComponent(event.release)}?project=${encodeURIComponent(v.issue.project_id)}`}>{event.release}</a>),
          ],
          [
            'Trace',
            event.trace_id &&
              built(
                <a href={`/traces/${encodeURIComponent(event.trace_id)}`} class="trace-link">
                  <code>{event.trace_id}</code>
                </a>,
              ),
          ],
          [
            'Replay',
            event.replay_id &&
              built(
                <a href={`/replays/${encodeURIComponent(event.replay_id)}`} class="replay-link">
                  <code>{event.replay_id}</code>
                </a>,
              ),
          ],
          ['Level', event.level],
          ['Message', event.message],
          ['Platform', event.platform],
        ]}
      />
      {event.root_cause && <p class="root-cause">{event.root_cause.summary}</p>}

      <h3>Exception{chain.length > 1 ? ' chain' : ''}</h3>
      {hasRaw && (
        <p class="toggle">
          Showing {v.raw ? 'frames as received' : 'symbolicated frames'}.{' '}
          <a href={href(v.issue.id, { event: event.id, range: v.range, view: v.raw ? undefined : 'raw' })}>
            {v.raw ? 'Show symbolicated frames' : 'Show raw frames'}
          </a>
        </p>
      )}
      {chain.map(({ exception, frames }, i) => (
        <article class="exception" aria-label={i === 0 ? 'Raised exception' : `Cause ${i}`}>
          <h4>
            {i > 0 && <span class="caused">Caused by </span>}
            <span class="exc-type">{exception.type}</span>: <span class="exc-value">{exception.value}</span>
          </h4>
          {frames.length ? (
            <Frames frames={frames} notes={v.raw ? new Map() : notesOf(event.processing_errors, `exception${'.cause'.repeat(i)}`)} />
          ) : (
            <p class="muted">No stack trace.</p>
          )}
        </article>
      ))}

      {event.processing_errors?.length > 0 && (
        <>
          <h3>Processing errors</h3>
          <ul class="processing-errors">
            {event.processing_errors.map((e) => (
              <li>
                <code>{e.type}</code> {e.path && <code>{e.path}</code>} {e.message}
              </li>
            ))}
          </ul>
        </>
      )}

      {event.breadcrumbs && event.breadcrumbs.length > 0 && (
        <>
          <h3>Breadcrumbs</h3>
          <table class="breadcrumbs">
            <TableHead cols={['Time', 'Type', 'Category', 'Level', 'Message', 'Data']} />
            <tbody>
              {event.breadcrumbs.map((b) => (
                <tr>
                  <td>
                    <Before at={b.timestamp} event={event.timestamp} />
                  </td>
                  <td>{b.type}</td>
                  <td>{b.category}</td>
                  <td>{b.level}</td>
                  <td>{b.message}</td>
                  <td>{b.data && <code>{JSON.stringify(b.data)}</code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {event.user && (
        <>
          <h3>User</h3>
          <Pairs entries={Object.entries(event.user)} />
        </>
      )}
      {event.request && (
        <>
          <h3>Request</h3>
          <Pairs entries={Object.entries(event.request)} />
        </>
      )}
      {event.tags && Object.keys(event.tags).length > 0 && (
        <>
          <h3>Tags of this event</h3>
          <Pairs entries={Object.entries(event.tags)} />
        </>
      )}
      {event.contexts && Object.keys(event.contexts).length > 0 && (
        <>
          <h3>Contexts</h3>
          <ContextTables contexts={event.contexts} />
        </>
      )}
    </section>
  );
}

/** A breadcrumb's time as its distance before the event ("1.2 s before"), the absolute time on hover. */
function Before({ at, event }: { at: string | undefined; event: string }) {
  const delta = at ? Date.parse(event) - Date.parse(at) : NaN;
  if (!at || Number.isNaN(delta)) return <span>{at ?? '—'}</span>;
  return (
    <time datetime={at} title={at}>
      {delta < 0 ? `${formatDuration(-delta)} after` : `${formatDuration(delta)} before`}
    </time>
  );
}

function SeenIn({ at, release, project }: { at: string; release: string; project: string }) {
  return (
    <span>
      <When at={at} /> in <a href={`/releases/${encodeURIComponent(release)}?project=${encodeURIComponent(project)}`}>{release}</a>
    </span>
  );
}

export function IssuePage(v: IssueView) {
  const { issue } = v;
  const actions: Array<[string, string]> =
    issue.status === 'resolved' || issue.status === 'ignored'
      ? [['unresolved', 'Unresolve']]
      : [
          ['resolved', 'Resolve'],
          ['ignored', 'Ignore'],
        ];
  return (
    <Page viewer={v.viewer} title={issue.title} section="/issues">
      <p class="crumbs">
        <a href={`/issues?project=${encodeURIComponent(issue.project_id)}`}>Issues of {issue.project_id}</a>
      </p>
      <h1 class="issue-title">{issue.title}</h1>
      <p class="culprit">{issue.culprit}</p>
      <p class="triage-link">
        <a href={`/issues/${encodeURIComponent(issue.id)}/triage`}>Merge, fingerprints, comments and activity</a>
      </p>
      {v.notice && (
        <p class="notice" role="status">
          {v.notice}
        </p>
      )}
      <div class="issue-status">
        <span>
          Status:{' '}
          <strong class={`status status-${issue.status}`} id="issue-status">
            {issue.status}
          </strong>
          {issue.status === 'ignored' && v.ignoreUntil && <IgnoredUntil value={v.ignoreUntil} />}
        </span>
        {actions.map(([status, label]) => (
          <form method="post" action={`/issues/${encodeURIComponent(issue.id)}/status`}>
            <Csrf token={v.viewer.csrf} />
            <input type="hidden" name="status" value={status} />
            <button type="submit">{label}</button>
          </form>
        ))}
        {issue.status !== 'ignored' && <IgnoreUntilForm issueId={issue.id} csrf={v.viewer.csrf} />}
        <AssigneePicker issue={issue} users={v.users} csrf={v.viewer.csrf} />
      </div>
      <Pairs
        entries={[
          ['Events', issue.count],
          ['First seen', built(<SeenIn at={issue.first_seen} release={issue.first_release} project={issue.project_id} />)],
          ['Last seen', built(<SeenIn at={issue.last_seen} release={issue.last_release} project={issue.project_id} />)],
          ['Level', issue.level],
        ]}
      />
      <section aria-labelledby="chart-title">
        <h2 id="chart-title">Events over time</h2>
        <p class="range">
          {v.range === '24h' ? <strong>24 hours</strong> : <a href={href(issue.id, { range: '24h', event: v.event?.id })}>24 hours</a>}
          {' · '}
          {v.range === '30d' ? <strong>30 days</strong> : <a href={href(issue.id, { range: '30d', event: v.event?.id })}>30 days</a>}
        </p>
        <BarChart counts={v.counts} labels={v.labels} title={v.range === '24h' ? 'Events per hour, last 24 hours' : 'Events per day, last 30 days'} />
      </section>
      {v.tags.length > 0 && (
        <section aria-labelledby="tags-title">
          <h2 id="tags-title">Tags</h2>
          <p class="muted">
            Events of the last {v.range === '24h' ? '24 hours' : '30 days'}
            {issue.count > TAG_SAMPLE ? `, at most the latest ${TAG_SAMPLE.toLocaleString('en-US')}` : ''}.
          </p>
          <div class="tags">
            {v.tags.map((tag) => (
              <table class="tag">
                <caption>{tag.key}</caption>
                <tbody>
                  {tag.values.map(({ value, count }) => (
                    <tr>
                      <th scope="row">{value}</th>
                      <td>
                        <meter min={0} max={tag.total} value={count} aria-label={`${value}: ${count} of ${tag.total}`} />
                      </td>
                      <td>{Math.round((count / tag.total) * 100)}%</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
          </div>
        </section>
      )}
      {v.event ? <EventDetails v={v} event={v.event} /> : <p>The events of this issue are no longer stored (retention).</p>}
    </Page>
  );
}
