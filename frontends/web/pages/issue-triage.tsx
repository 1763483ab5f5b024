// The issue's triage page (issue #26), linked from the issue page: merge similar issues into it,
// its fingerprints with unmerge, a comment box, and the activity timeline with comments rendered
// as a safe subset of Markdown.
import { Fragment, h } from '../jsx.js';
import type { Activity } from '../../../extensions/issues/issue-activity.js';
import type { Fingerprint } from '../../../extensions/query/issue-merges.js';
import type { Issue } from '../../../extensions/query/issues.js';
import { renderMarkdown } from '../markdown.js';
import { Csrf, Page, TableHead, type Viewer } from './layout.js';
import { When } from './parts.js';

export interface TriageView {
  viewer: Viewer;
  issue: Issue;
  candidates: Issue[];
  fingerprints: Fingerprint[];
  activity: Activity[];
  notice?: string;
}

const issueHref = (id: string) => `/issues/${encodeURIComponent(id)}`;

function actorOf(entry: Activity): string {
  if (entry.actor.type === 'user') return entry.actor.email;
  if (entry.actor.type === 'key') return `API key ${entry.actor.id}`;
  return 'Faultline';
}

const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

function IssueLinks({ ids }: { ids: string[] }) {
  return (
    <>
      {ids.map((id, i) => (
        <>
          {i > 0 ? ', ' : ''}
          <a href={issueHref(id)}>{id}</a>
        </>
      ))}
    </>
  );
}

/** What one entry says, after who did it. */
function Said({ entry }: { entry: Activity }) {
  const d = entry.data;
  switch (entry.kind) {
    case 'comment':
      return <div class="comment-body">{renderMarkdown(String(d.text ?? ''))}</div>;
    case 'status':
      return <span>set the status to {String(d.status)}</span>;
    case 'assignee':
      return <span>assigned it to {d.assignee === null ? 'nobody' : String((d.assignee as { email?: string } | null)?.email ?? d.assignee)}</span>;
    case 'merged':
      return (
        <span>
          merged <IssueLinks ids={list(d.issue_ids)} /> into it
        </span>
      );
    case 'merged_into':
      return (
        <span>
          merged it into <IssueLinks ids={[String(d.issue_id)]} />
        </span>
      );
    case 'unmerged':
      return (
        <span>
          moved {list(d.fingerprints).length} fingerprint(s) to <IssueLinks ids={[String(d.issue_id)]} />
        </span>
      );
    case 'unmerged_from':
      return (
        <span>
          moved {list(d.fingerprints).length} fingerprint(s) here from <IssueLinks ids={[String(d.issue_id)]} />
        </span>
      );
    case 'regressed':
      return <span>saw it again after it was resolved (a regression)</span>;
    case 'escalated':
      return <span>escalated it: it was ignored until now</span>;
    case 'first_seen':
      return <span>saw it first</span>;
  }
}

export function TriagePage(v: TriageView) {
  const { issue } = v;
  const base = issueHref(issue.id);
  return (
    <Page viewer={v.viewer} title={`Triage: ${issue.title}`} section="/issues">
      <p class="crumbs">
        <a href={`/issues?project=${encodeURIComponent(issue.project_id)}`}>Issues of {issue.project_id}</a> › <a href={base}>{issue.title}</a>
      </p>
      <h1 class="issue-title">Triage: {issue.title}</h1>
      {v.notice && (
        <p class="notice" role="status">
          {v.notice}
        </p>
      )}

      <section aria-labelledby="merge-title">
        <h2 id="merge-title">Merge similar issues into this one</h2>
        {v.candidates.length === 0 ? (
          <p class="muted">No other issue of this project has the same type ({issue.type}) or culprit.</p>
        ) : (
          <form method="post" action={`${base}/merge`}>
            <Csrf token={v.viewer.csrf} />
            <table>
              <TableHead cols={['Merge', 'Issue', 'Culprit', 'Events', 'Last seen']} />
              <tbody>
                {v.candidates.map((c) => (
                  <tr>
                    <td>
                      <input type="checkbox" name="issue_ids" value={c.id} id={`merge-${c.id}`} />
                    </td>
                    <td>
                      <label for={`merge-${c.id}`}>{c.title}</label> <a href={issueHref(c.id)}>{c.id}</a>
                    </td>
                    <td>{c.culprit}</td>
                    <td>{c.count}</td>
                    <td>
                      <When at={c.last_seen} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <button type="submit">Merge selected</button>
          </form>
        )}
      </section>

      <section aria-labelledby="fingerprints-title">
        <h2 id="fingerprints-title">Fingerprints</h2>
        <form method="post" action={`${base}/unmerge`}>
          <Csrf token={v.viewer.csrf} />
          <table>
            <TableHead cols={['Unmerge', 'Fingerprint', 'Events', 'Last seen', 'Merged from']} />
            <tbody>
              {v.fingerprints.map((f) => (
                <tr>
                  <td>
                    <input type="checkbox" name="fingerprints" value={f.fingerprint} id={`print-${f.fingerprint}`} aria-label={`Unmerge ${f.fingerprint}`} />
                  </td>
                  <td>
                    <code>{f.fingerprint}</code>
                  </td>
                  <td>{f.count}</td>
                  <td>
                    <When at={f.last_seen} />
                  </td>
                  <td>{f.merged_from ? <a href={issueHref(f.merged_from)}>{f.merged_from}</a> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {v.fingerprints.length > 1 && <button type="submit">Unmerge selected</button>}
        </form>
      </section>

      <section aria-labelledby="comment-title">
        <h2 id="comment-title">Comment</h2>
        <form method="post" action={`${base}/comments`}>
          <Csrf token={v.viewer.csrf} />
          <label for="comment-text">Comment (Markdown: **bold**, *italic*, `code`, [links](https://…), lists)</label>
          <textarea id="comment-text" name="text" rows={4} maxlength={10000} required></textarea>
          <button type="submit">Add comment</button>
        </form>
      </section>

      <section aria-labelledby="activity-title">
        <h2 id="activity-title">Activity</h2>
        <ol class="activity">
          {v.activity.map((entry) => (
            <li class={`activity-${entry.kind}`}>
              <When at={new Date(entry.at).toISOString()} /> <strong class="actor">{actorOf(entry)}</strong> <Said entry={entry} />
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}
