// Releases: the list (most recently seen first) and a page per release with its events, the
// issues it opened and brought back, and its crash-free sessions and users.
import { h } from '../jsx.js';
import type { Issue, ReleaseDetail, ReleaseHealthSummary, ReleaseSummary } from '../../../extensions/query/index.js';
import { Page, TableHead, type Viewer } from './layout.js';
import { NextPage, percent, ProjectPicker, When } from './parts.js';

const releaseHref = (project: string, version: string) => `/releases/${encodeURIComponent(version)}?project=${encodeURIComponent(project)}`;

export function ReleasesPage(v: {
  viewer: Viewer;
  projects: string[];
  project: string;
  releases: ReleaseSummary[];
  query: URLSearchParams;
  nextCursor: string | null;
  error?: string;
}) {
  return (
    <Page viewer={v.viewer} title="Releases" section="/releases">
      <h1>Releases of {v.project}</h1>
      <ProjectPicker action="/releases" projects={v.projects} current={v.project} />
      {v.error && (
        <p class="error" role="alert">
          {v.error}
        </p>
      )}
      {v.releases.length === 0 ? (
        <p class="empty">No releases yet: events and sessions name theirs (the SDK's release option).</p>
      ) : (
        <table class="list releases">
          <TableHead cols={['Release', 'First seen', 'Last seen', 'Events', 'New issues', 'Crash-free sessions', 'Crash-free users']} />
          <tbody>
            {v.releases.map((r) => (
              <tr>
                <td>
                  <a href={releaseHref(v.project, r.version)}>{r.version}</a>
                </td>
                <td>
                  <When at={r.first_seen} />
                </td>
                <td>
                  <When at={r.last_seen} />
                </td>
                <td>{r.event_count}</td>
                <td>{r.new_issue_count}</td>
                <td>{percent(r.health.crash_free_sessions)}</td>
                <td>{percent(r.health.crash_free_users)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPage path="/releases" query={v.query} cursor={v.nextCursor} />
    </Page>
  );
}

function IssueTable({ issues, empty, label }: { issues: Issue[]; empty: string; label: string }) {
  if (issues.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table class="list" aria-label={label}>
      <TableHead cols={['Issue', 'Events', 'Status', 'Last seen']} />
      <tbody>
        {issues.map((i) => (
          <tr>
            <td>
              <a href={`/issues/${encodeURIComponent(i.id)}`}>{i.title}</a>
              <br />
              <span class="muted">{i.culprit}</span>
            </td>
            <td>{i.count}</td>
            <td>{i.status}</td>
            <td>
              <When at={i.last_seen} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Health({ health }: { health: ReleaseHealthSummary }) {
  return (
    <dl class="pairs health">
      <dt>Crash-free sessions</dt>
      <dd data-health="sessions">{percent(health.crash_free_sessions)}</dd>
      <dt>Crash-free users</dt>
      <dd data-health="users">{percent(health.crash_free_users)}</dd>
      <dt>Sessions</dt>
      <dd>
        {health.sessions} ({health.crashed} crashed, {health.errored} with errors, {health.abnormal} abnormal)
      </dd>
      <dt>Users</dt>
      <dd>
        {health.users} ({health.crashed_users} with a crash)
      </dd>
    </dl>
  );
}

export function ReleasePage({ viewer, release }: { viewer: Viewer; release: ReleaseDetail }) {
  return (
    <Page viewer={viewer} title={`Release ${release.version}`} section="/releases">
      <p>
        <a href={`/releases?project=${encodeURIComponent(release.project_id)}`}>All releases</a>
      </p>
      <h1>
        Release <code>{release.version}</code>
      </h1>
      <dl class="pairs">
        <dt>Project</dt>
        <dd>{release.project_id}</dd>
        <dt>First seen</dt>
        <dd>
          <When at={release.first_seen} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <When at={release.last_seen} />
        </dd>
        <dt>Events</dt>
        <dd data-count="events">{release.event_count}</dd>
        <dt>Environments</dt>
        <dd>{release.environments.join(', ') || '—'}</dd>
      </dl>
      <h2>Release health</h2>
      <Health health={release.health} />
      <p class="hint">
        From the sessions Sentry SDKs send (autoSessionTracking); users are counted by the session&apos;s distinct id, so crash-free users needs the SDK to know
        the user.
      </p>
      <h2 id="new-issues">New issues ({release.new_issues.length})</h2>
      <IssueTable issues={release.new_issues} empty="No issue was first seen in this release." label="New issues" />
      <h2 id="regressed-issues">Regressed issues ({release.regressed_issues.length})</h2>
      <IssueTable issues={release.regressed_issues} empty="No resolved issue came back in this release." label="Regressed issues" />
      <p>
        <a href={`/issues?project=${encodeURIComponent(release.project_id)}&release=${encodeURIComponent(release.version)}&status=`}>
          Every issue with an event in this release
        </a>
      </p>
    </Page>
  );
}
