// The issues list with triage (GET /issues: the search language, filter menus, an assignee
// column and filter, checkboxes for bulk changes) and the triage forms: POST /issues/bulk
// (resolve, ignore, unresolve or assign the checked issues, all or none) and
// POST /issues/{id}/assignee (the issue page's picker). Same stores as the API's routes.
import type { HttpHost } from '../../../src/http/host.js';
import { InvalidCursorError } from '../../../src/http/cursor.js';
import { ISSUE_SORT_KEYS, type IssueSearch, type IssueSortKey } from '../../../extensions/query/issue-finder.js';
import { SearchSyntaxError } from '../../../extensions/query/issue-search.js';
import type { Actor, Assignee, TriageChange } from '../../../extensions/query/issue-triage.js';
import type { Issue, IssueStatus } from '../../../extensions/query/issues.js';
import { chartWindow } from '../../../extensions/query/index.js';
import { MAX_MERGE_SOURCES, TriageNotFound, TriageRefusal } from '../../../extensions/query/issue-merges.js';
import { userActor } from './issue-triage.js';
import { recordBulkActivity } from '../../../extensions/query/bulk-activity.js';
import type { PageKit, Signed } from '../kit.js';
import { IssuesPage, type IssuesView } from '../pages/issues.js';

/** The most issues one bulk form changes (the API's cap). */
const MAX_BULK = 1000;
const LIST_STATUSES = ['', 'unresolved', 'resolved', 'ignored', 'regressed'];
/** What the bulk form's buttons do. */
const BULK_OPS: Record<string, TriageChange['status'] | 'assign' | 'merge'> = {
  resolve: 'resolved',
  ignore: 'ignored',
  unresolve: 'unresolved',
  assign: 'assign',
  merge: 'merge',
};

/** The query parameter a bulk change comes back with, holding how many issues it changed. */
const OUTCOMES = ['changed', 'assigned', 'unassigned', 'merged'] as const;

const actorOf = (s: Signed): Actor => ({ kind: 'user', id: s.session.user.id, email: s.session.user.email });

export function registerTriagePages(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/issues',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      const data = storage.issueViews;
      const q = event.url.searchParams;
      const { project, projects } = await kit.pickProject(s, q.get('project'));
      const status = q.get('status') ?? 'unresolved';
      const sortParam = q.get('sort') === 'count' ? 'events' : (q.get('sort') ?? 'last_seen'); // `count`: the list's older name for it
      const sort: IssueSortKey = (ISSUE_SORT_KEYS as readonly string[]).includes(sortParam) ? (sortParam as IssueSortKey) : 'last_seen';
      const filters: IssuesView['filters'] = {
        status: LIST_STATUSES.includes(status) ? status : 'unresolved',
        environment: q.get('environment') ?? '',
        release: q.get('release') ?? '',
        level: q.get('level') ?? '',
        assignee: q.get('assignee') ?? '',
        query: q.get('query') ?? '',
        sort,
      };
      const users = await storage.triage.assignableUsers(s.principal.orgId);
      const search: IssueSearch = {
        dataset: s.session.dataset,
        projectId: project.id,
        status: (filters.status || undefined) as IssueStatus | undefined,
        query: filters.query,
        me: s.session.user.id,
        terms: (['environment', 'release', 'level'] as const).filter((key) => filters[key] !== '').map((key) => ({ key, value: filters[key] })),
      };
      if (filters.assignee === 'none') search.assigneeId = null;
      else if (filters.assignee === 'me') search.assigneeId = s.session.user.id;
      else if (filters.assignee !== '') search.assigneeId = users.find((u) => u.email === filters.assignee)?.id ?? '';
      let error: string | undefined;
      let searchError: { message: string; position: number } | undefined;
      let page: { issues: Issue[]; nextCursor: string | null } = { issues: [], nextCursor: null };
      try {
        page = await storage.issueFinder.list(search, sort, 25, q.get('cursor') || undefined);
      } catch (e) {
        if (e instanceof SearchSyntaxError) searchError = { message: e.message, position: e.position };
        else if (e instanceof InvalidCursorError) error = e.message;
        else throw e;
      }
      const now = Date.now();
      const sparkWindow = chartWindow('hour', 24, now);
      const ids = page.issues.map((i) => i.id);
      const [sparklines, facets] = await Promise.all([
        data.counts(s.session.dataset, project.id, ids, 'hour', 24, now),
        data.facets(s.session.dataset, project.id),
      ]);
      const view: IssuesView = {
        viewer: s.viewer,
        projects,
        project,
        filters,
        facets,
        users,
        issues: page.issues,
        sparklines,
        sparkWindow,
        nextCursor: page.nextCursor,
        appUrl: kit.appUrl,
        error,
        searchError,
        notice: noticeOf(q),
      };
      return kit.html(IssuesPage(view), searchError || error ? 400 : 200);
    }),
  );

  http.page(
    'POST',
    '/issues/bulk',
    kit.action(async (_event, s, form) => {
      const { storage } = kit.need();
      const { project } = await kit.pickProject(s, String(form.get('project') ?? ''));
      const op = BULK_OPS[String(form.get('op') ?? '')];
      if (op === undefined) kit.fail(400, 'Choose resolve, ignore, unresolve, assign or merge.');
      const ids = [...new Set(form.getAll('id').map(String))].filter((id) => id !== '');
      if (ids.length === 0) kit.fail(400, 'Check at least one issue.');
      if (ids.length > MAX_BULK) kit.fail(400, `At most ${MAX_BULK} issues at once.`);
      if (op === 'merge') return mergeChecked(kit, s, project.id, ids, String(form.get('back') ?? ''));
      const change: TriageChange = op === 'assign' ? { assignee: await assigneeOf(kit, s, String(form.get('assignee') ?? '')) } : { status: op };
      const issues = await storage.issueFinder.byIds(s.session.dataset, project.id, ids);
      if (issues.length !== ids.length) kit.fail(404, `Some of these issues are not in project ${project.id}: nothing changed.`);
      const updated = await storage.triage.apply(s.session.dataset, issues, change, actorOf(s), (changed) =>
        storage.issueFinder.byIds(s.session.dataset, project.id, changed),
      );
      await recordBulkActivity(storage, s.session.dataset, project.id, issues, userActor(s));
      const outcome = op !== 'assign' ? 'changed' : change.assignee ? 'assigned' : 'unassigned';
      return kit.redirect(`${safeBack(String(form.get('back') ?? ''))}${outcome}=${updated}`);
    }),
  );

  http.page(
    'POST',
    '/issues/:id/assignee',
    kit.action(async (event, s, form) => {
      const { storage } = kit.need();
      const id = decodeURIComponent(event.context.params?.id ?? '');
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const issue = await storage.issues.get(s.session.dataset, projectIds, id);
      if (!issue) kit.fail(404, `No issue ${id}.`);
      const assignee = await assigneeOf(kit, s, String(form.get('assignee') ?? ''));
      await storage.triage.apply(s.session.dataset, [issue], { assignee }, actorOf(s), async () =>
        [await storage.issues.get(s.session.dataset, projectIds, id)].filter((i): i is Issue => i !== undefined),
      );
      return kit.redirect(`/issues/${encodeURIComponent(id)}?assigned=1`);
    }),
  );
}

/**
 * Merges the checked issues into the one with the most events (the oldest on a tie), as Sentry's
 * list does: the others' events and fingerprints are its own from then on.
 */
async function mergeChecked(kit: PageKit, s: Signed, projectId: string, ids: string[], back: string): Promise<Response> {
  const { storage } = kit.need();
  if (ids.length < 2) kit.fail(400, 'Check at least two issues to merge.');
  if (ids.length > MAX_MERGE_SOURCES + 1) kit.fail(400, `At most ${MAX_MERGE_SOURCES + 1} issues merge at once.`);
  const issues = await storage.issueFinder.byIds(s.session.dataset, projectId, ids);
  if (issues.length !== ids.length) kit.fail(404, `Some of these issues are not in project ${projectId}: nothing merged.`);
  const [target, ...sources] = [...issues].sort((a, b) => b.count - a.count || a.first_seen.localeCompare(b.first_seen));
  try {
    await storage.merges.merge(
      s.session.dataset,
      [projectId],
      target.id,
      sources.map((i) => i.id),
      userActor(s),
    );
  } catch (error) {
    if (error instanceof TriageRefusal) kit.fail(400, `Cannot merge these: ${error.message}.`);
    if (error instanceof TriageNotFound) kit.fail(404, error.message);
    throw error;
  }
  return kit.redirect(`${safeBack(back)}merged=${sources.length}`);
}

/** The form's assignee: an email of the organization, `me`, or empty for nobody. */
async function assigneeOf(kit: PageKit, s: Signed, value: string): Promise<Assignee | null> {
  if (value === '') return null;
  if (value === 'me') return { id: s.session.user.id, email: s.session.user.email };
  const user = await kit.need().storage.triage.assignableUser(s.principal.orgId, value);
  if (!user) kit.fail(400, `No user ${value} in this organization.`);
  return user;
}

/** Back to the list the form was on (only /issues?…), ready for one more parameter. */
function safeBack(back: string): string {
  const base = back.startsWith('/issues?') || back === '/issues' ? back : '/issues';
  const url = new URL(base, 'http://local');
  for (const outcome of OUTCOMES) url.searchParams.delete(outcome);
  const rest = url.searchParams.toString();
  return `/issues?${rest}${rest ? '&' : ''}`;
}

/** The notice after a bulk change: `changed=2` → "2 issues changed." */
function noticeOf(q: URLSearchParams): string | undefined {
  for (const outcome of OUTCOMES) {
    const n = q.get(outcome);
    if (n !== null && /^\d{1,4}$/.test(n)) return `${n} ${n === '1' ? 'issue' : 'issues'} ${outcome}.`;
  }
  return undefined;
}
