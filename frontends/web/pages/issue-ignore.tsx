// "Ignore until" on the issue page: the choices an unignored issue offers, and what an issue
// ignored with a condition waits for.
import { h } from '../jsx.js';
import { presentIgnoreUntil, type IgnoreUntil } from '../../../src/records/ignore-until.js';
import { Csrf } from './layout.js';
import { When } from './parts.js';

/** The preset choices: `<kind>:<value>` as the form posts them (src/web/routes/issue-ignore.ts). */
export const IGNORE_CHOICES: Array<[string, string]> = [
  ['count:10', '10 more events'],
  ['count:100', '100 more events'],
  ['count:1000', '1,000 more events'],
  ['users:10', '10 more users'],
  ['users:100', '100 more users'],
  ['minutes:60', 'an hour'],
  ['minutes:1440', 'a day'],
  ['minutes:10080', 'a week'],
];

export function IgnoreUntilForm({ issueId, csrf }: { issueId: string; csrf: string }) {
  return (
    <form method="post" action={`/issues/${encodeURIComponent(issueId)}/ignore`} class="ignore-until">
      <Csrf token={csrf} />
      <label for="ignore-until">Ignore until</label>{' '}
      <select id="ignore-until" name="until">
        {IGNORE_CHOICES.map(([value, label]) => (
          <option value={value}>{label}</option>
        ))}
      </select>{' '}
      <label for="ignore-until-time">or until (UTC)</label> <input id="ignore-until-time" type="datetime-local" name="time" />{' '}
      <button type="submit">Ignore until</button>
    </form>
  );
}

/** What an ignored issue waits for, e.g. "until 100 more events (since …)". */
export function IgnoredUntil({ value }: { value: IgnoreUntil }) {
  const shown = presentIgnoreUntil(value);
  const what =
    'count' in value.condition ? `${value.condition.count} more events` : 'users' in value.condition ? `${value.condition.users} more users` : undefined;
  return (
    <span class="ignored-until" id="ignored-until">
      {' '}
      until {what ?? <When at={shown.ends_at as string} />}
      {what && (
        <span>
          {' '}
          (counted from <When at={shown.ignored_at as string} />)
        </span>
      )}
    </span>
  );
}
