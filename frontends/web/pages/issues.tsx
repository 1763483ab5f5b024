// The issues list: per project and environment, filters, the search language (its errors shown
// under the box), sorts, a 24-hour sparkline per issue, an assignee column, checkboxes for bulk
// triage (routes/triage.ts), cursor pagination, and what to do when nothing has arrived yet.
import { h } from '../jsx.js';
import type { Project } from '../../../extensions/catalog/catalog.js';
import type { IssueSortKey } from '../../../extensions/query/issue-finder.js';
import type { Assignee } from '../../../extensions/query/issue-triage.js';
import type { Issue } from '../../../extensions/query/issues.js';
import { Sparkline } from './charts.js';
import { Csrf, Page, type Viewer, TableHead } from './layout.js';

export interface IssuesView {
  viewer: Viewer;
  projects: Project[];
  project: Project;
  filters: { status: string; environment: string; release: string; level: string; assignee: string; query: string; sort: IssueSortKey };
  facets: { environments: string[]; releases: string[] };
  /** Whom issues can be assigned to (the organization's web users). */
  users: Assignee[];
  issues: Issue[];
  sparklines: Map<string, number[]>;
  /** The sparklines' hours: the first one's start and the bucket size (epoch ms). */
  sparkWindow: { start: number; size: number };
  nextCursor: string | null;
  appUrl: string;
  error?: string;
  /** The search box's query did not parse: why, and where (an offset into it). */
  searchError?: { message: string; position: number };
  notice?: string;
}

const STATUS_CHOICES: Array<[string, string]> = [
  ['unresolved', 'Unresolved'],
  ['regressed', 'Regressed'],
  ['resolved', 'Resolved'],
  ['ignored', 'Ignored'],
  ['', 'Any'],
];
const SORT_CHOICES: Array<[string, string]> = [
  ['last_seen', 'Last seen'],
  ['first_seen', 'First seen'],
  ['events', 'Events'],
  ['users', 'Users'],
];

function Select({ id, label, value, options }: { id: string; label: string; value: string; options: Array<[string, string]> }) {
  return (
    <p>
      <label for={id}>{label}</label>
      <select id={id} name={id}>
        {options.map(([v, text]) => (
          <option value={v} selected={v === value}>
            {text}
          </option>
        ))}
      </select>
    </p>
  );
}

export function FirstEvent({ appUrl, project }: { appUrl: string; project: Project }) {
  const curl = `curl -X POST ${appUrl}/v1/events \\
  -H "Authorization: Bearer $FAULTLINE_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"timestamp": "${new Date().toISOString()}", "environment": "production", "release": "web@1.0.0",
       "exception": {"type": "Error", "value": "my first error"}}'`;
  return (
    <section class="empty" aria-labelledby="empty-title">
      <h2 id="empty-title">No issues yet in {project.name}</h2>
      <p>
        Send your first error event with an API key (<code>faultline keys create --project {project.id}</code> makes one; the first start printed a live and a
        sandbox key). The acknowledgment carries a permalink to the issue it opened.
      </p>
      <pre>
        <code>{curl}</code>
      </pre>
      <p>
        Sentry SDKs and OpenTelemetry exporters work too: see <a href="/projects">Projects</a> for the snippets.
      </p>
    </section>
  );
}

export function IssuesPage(v: IssuesView) {
  const f = v.filters;
  const params = (cursor: string) => {
    const q = new URLSearchParams({ project: v.project.id, ...f, cursor });
    for (const [k, value] of [...q.entries()]) if (!value) q.delete(k);
    return `/issues?${q.toString()}`;
  };
  const filtered = Boolean(f.environment || f.release || f.level || f.assignee || f.query || f.status !== 'unresolved');
  const assigneeChoices: Array<[string, string]> = [
    ['', 'Anyone'],
    ['none', 'Nobody'],
    ['me', 'Me'],
    ...v.users.map((u): [string, string] => [u.email, u.email]),
  ];
  return (
    <Page viewer={v.viewer} title="Issues" section="/issues">
      <h1>Issues</h1>
      <form method="get" action="/issues" class="filters" aria-label="Filter issues">
        <Select id="project" label="Project" value={v.project.id} options={v.projects.map((p) => [p.id, p.name])} />
        <Select id="status" label="Status" value={f.status} options={STATUS_CHOICES} />
        <Select
          id="environment"
          label="Environment"
          value={f.environment}
          options={[['', 'All'], ...v.facets.environments.map((e): [string, string] => [e, e])]}
        />
        <Select id="release" label="Release" value={f.release} options={[['', 'All'], ...v.facets.releases.map((r): [string, string] => [r, r])]} />
        <Select
          id="level"
          label="Level"
          value={f.level}
          options={[['', 'All'], ...['fatal', 'error', 'warning', 'info', 'debug'].map((l): [string, string] => [l, l])]}
        />
        <Select id="assignee" label="Assignee" value={f.assignee} options={assigneeChoices} />
        <p>
          <label for="query">Search</label>
          <input
            id="query"
            name="query"
            type="search"
            value={f.query}
            placeholder="is:unresolved assigned:me tags.route:/checkout first_seen:>-24h TypeError"
            aria-invalid={v.searchError ? 'true' : undefined}
            aria-describedby={v.searchError ? 'query-error' : undefined}
          />
        </p>
        <Select id="sort" label="Sort by" value={f.sort} options={SORT_CHOICES} />
        <p>
          <button type="submit">Apply</button>
        </p>
      </form>
      {v.searchError && <SearchError query={f.query} error={v.searchError} />}
      {v.error && (
        <p class="error" role="alert">
          {v.error}
        </p>
      )}
      {v.notice && (
        <p class="notice" role="status">
          {v.notice}
        </p>
      )}
      {v.issues.length > 0 && <BulkForm v={v} />}
      {v.issues.length === 0 ? (
        v.searchError ? null : filtered ? (
          <p class="empty">No issue matches these filters.</p>
        ) : (
          <FirstEvent appUrl={v.appUrl} project={v.project} />
        )
      ) : (
        <table class="issues">
          <caption class="visually-hidden">Issues of {v.project.name}</caption>
          <TableHead cols={['', 'Issue', 'Status', 'Assignee', 'Last 24 h', 'Events', 'First seen', 'Last seen']} />
          <tbody>
            {v.issues.map((issue) => {
              const series = v.sparklines.get(issue.id) ?? [];
              return (
                <tr>
                  <td>
                    <input type="checkbox" name="id" value={issue.id} form="bulk" aria-label={`Select ${issue.title}`} />
                  </td>
                  <td>
                    <a href={`/issues/${encodeURIComponent(issue.id)}`} class="issue-title">
                      {issue.title}
                    </a>
                    <div class="culprit">{issue.culprit}</div>
                  </td>
                  <td>
                    <span class={`status status-${issue.status}`}>{issue.status}</span>
                  </td>
                  <td class="assignee">{issue.assignee ? issue.assignee.email : <span class="muted">—</span>}</td>
                  <td>
                    <Sparkline
                      counts={series}
                      start={v.sparkWindow.start}
                      size={v.sparkWindow.size}
                      label={`${series.reduce((a, b) => a + b, 0)} events in the last 24 hours`}
                    />
                  </td>
                  <td>{issue.count}</td>
                  <td>
                    <time datetime={issue.first_seen}>{issue.first_seen.replace('T', ' ').slice(0, 19)}</time>
                  </td>
                  <td>
                    <time datetime={issue.last_seen}>{issue.last_seen.replace('T', ' ').slice(0, 19)}</time>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <nav aria-label="Pages" class="pager">
        {f && v.nextCursor && (
          <a href={params(v.nextCursor)} rel="next">
            Older issues →
          </a>
        )}
      </nav>
    </Page>
  );
}

/** The search error under the box, with the query marked from the offending token on. */
function SearchError({ query, error }: { query: string; error: { message: string; position: number } }) {
  const at = Math.min(Math.max(error.position, 0), query.length);
  return (
    <div class="error search-error" id="query-error" role="alert">
      <p>{error.message}</p>
      {query !== '' && (
        <p>
          <code>
            {query.slice(0, at)}
            <mark>{query.slice(at) || ' '}</mark>
          </code>
        </p>
      )}
    </div>
  );
}

/** The bulk actions over the checked rows (each row's checkbox belongs to this form). */
function BulkForm({ v }: { v: IssuesView }) {
  return (
    <form id="bulk" method="post" action="/issues/bulk" class="bulk" aria-label="Change the checked issues">
      <Csrf token={v.viewer.csrf} />
      <input type="hidden" name="project" value={v.project.id} />
      <input type="hidden" name="back" value={v.viewer.here} />
      <span>Checked issues:</span>{' '}
      <button type="submit" name="op" value="resolve">
        Resolve
      </button>{' '}
      <button type="submit" name="op" value="ignore">
        Ignore
      </button>{' '}
      <button type="submit" name="op" value="unresolve">
        Unresolve
      </button>{' '}
      <label for="bulk-assignee">Assign to</label>{' '}
      <select id="bulk-assignee" name="assignee">
        <option value="">Nobody</option>
        <option value="me">Me</option>
        {v.users.map((u) => (
          <option value={u.email}>{u.email}</option>
        ))}
      </select>{' '}
      <button type="submit" name="op" value="assign">
        Assign
      </button>{' '}
      <button type="submit" name="op" value="merge" title="Into the checked issue with the most events">
        Merge
      </button>
    </form>
  );
}
