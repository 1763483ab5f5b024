// The issue page's assignee picker: the organization's web users, "me" and nobody; it posts to
// /issues/{id}/assignee (routes/triage.ts).
import { h } from '../jsx.js';
import type { Assignee } from '../../../extensions/query/issue-triage.js';
import type { Issue } from '../../../extensions/query/issues.js';
import { Csrf } from './layout.js';

export function AssigneePicker({ issue, users, csrf }: { issue: Issue; users: Assignee[]; csrf: string }) {
  const current = issue.assignee?.email ?? '';
  // An assignee who is no longer an enabled user (or was replicated from another node) stays selectable as is.
  const choices = users.some((u) => u.email === current) || current === '' ? users : [...users, { id: issue.assignee?.id ?? '', email: current }];
  return (
    <form method="post" action={`/issues/${encodeURIComponent(issue.id)}/assignee`} class="assignee-picker">
      <Csrf token={csrf} />
      <label for="assignee">Assignee</label>{' '}
      <select id="assignee" name="assignee">
        <option value="" selected={current === ''}>
          Nobody
        </option>
        {choices.map((u) => (
          <option value={u.email} selected={u.email === current}>
            {u.email}
          </option>
        ))}
      </select>{' '}
      <button type="submit">Assign</button>
    </form>
  );
}
