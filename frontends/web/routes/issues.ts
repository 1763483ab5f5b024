// The issues: GET /issues (filters, sorts, sparklines), the issue page behind every permalink
// (GET /issues/{id} is the API's route: it answers JSON to a key and this page to a browser),
// POST /issues/{id}/status, and GET /events/{id} (to the event on its issue's page).
import type { Dataset } from '../../../src/engine/item.js';
import type { HttpHost, PageHandler } from '../../../src/http/host.js';
import type { ErrorEvent } from '../../../src/records/event.js';
import {
  SETTABLE_STATUSES,
  type IssueStatus,
  searchConditions,
  chartWindow,
  ISSUE_SORTS,
  InvalidWebCursorError,
  type IssueSort,
  type IssueViews,
  parseQuery,
} from '../../../extensions/query/index.js';
import type { PageKit } from '../kit.js';
import { IssuePage } from '../pages/issue.js';
import { IssuesPage } from '../pages/issues.js';

/** The issue page, built before the routes are mounted: the API's permalink route serves it to browsers. */
export function issuePageHandler(kit: PageKit): PageHandler {
  return kit.view(async (event, s) => {
    const { storage } = kit.need();
    const data = storage.issueViews;
    const id = decodeURIComponent(event.context.params?.id ?? '');
    const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
    const issue = await storage.issues.get(s.session.dataset, projectIds, id);
    if (!issue) {
      const other: Dataset = s.session.dataset === 'live' ? 'test' : 'live';
      const elsewhere = await storage.issues.get(other, projectIds, id);
      return kit.fail(
        404,
        elsewhere ? `This issue is in the ${other === 'test' ? 'sandbox' : 'live'} data: switch in the header to see it.` : `No issue ${id}.`,
      );
    }
    const q = event.url.searchParams;
    const now = Date.now();
    // An issue not seen for a day opens on its 30 days, where its events are.
    const range = (q.get('range') ?? (now - Date.parse(issue.last_seen) > 86_400_000 ? '30d' : '24h')) === '30d' ? '30d' : '24h';
    const wanted = q.get('event') ?? undefined;
    const unit = range === '24h' ? 'hour' : 'day';
    const buckets = range === '24h' ? 24 : 30;
    const { size, start, end } = chartWindow(unit, buckets, now);
    const [timeline, tags] = await Promise.all([
      data.issueTimeline(s.session.dataset, issue, { unit, buckets, now }, wanted),
      data.tagDistribution(s.session.dataset, issue.project_id, issue.id, start),
    ]);
    if (wanted && !timeline.event) kit.fail(404, `Event ${wanted} is not an event of this issue.`);
    const doc = timeline.event ? await storage.events.get(s.session.dataset, [issue.project_id], timeline.event) : undefined;
    const event_ = doc ? (JSON.parse(doc) as ErrorEvent) : undefined;
    const labels = Array.from({ length: buckets }, (_, i) => {
      const t = new Date(end - (buckets - i) * size).toISOString();
      return unit === 'hour' ? `${t.slice(11, 16)} UTC` : t.slice(0, 10);
    });
    const notice = q.get('changed') ? `Status set to ${issue.status}.` : undefined;
    return kit.html(
      IssuePage({
        viewer: s.viewer,
        issue,
        event: event_,
        neighbours: { older: timeline.older, newer: timeline.newer },
        range,
        counts: timeline.counts,
        labels,
        tags,
        raw: q.get('view') === 'raw',
        notice,
      }),
    );
  });
}

export function registerIssuePages(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/issues',
    kit.view(async (event, s) => {
      const data = kit.need().storage.issueViews;
      const q = event.url.searchParams;
      const { project, projects } = await kit.pickProject(s, q.get('project'));
      const statusParam = q.get('status');
      const status = statusParam === null ? 'unresolved' : statusParam;
      const validStatus = ['', 'unresolved', 'resolved', 'ignored', 'regressed'].includes(status) ? status : 'unresolved';
      const sortParam = q.get('sort') ?? 'last_seen';
      const sort: IssueSort = (ISSUE_SORTS as readonly string[]).includes(sortParam) ? (sortParam as IssueSort) : 'last_seen';
      const filters = {
        status: validStatus,
        environment: q.get('environment') ?? '',
        release: q.get('release') ?? '',
        level: q.get('level') ?? '',
        query: q.get('query') ?? '',
        sort,
      };
      let error: string | undefined;
      let page: { issues: Awaited<ReturnType<IssueViews['listIssues']>>['issues']; nextCursor: string | null } = { issues: [], nextCursor: null };
      try {
        page = await data.listIssues({
          dataset: s.session.dataset,
          projectId: project.id,
          status: (filters.status || undefined) as IssueStatus | undefined,
          events: searchConditions(parseQuery(filters.query), {
            environment: filters.environment || undefined,
            release: filters.release || undefined,
            level: filters.level || undefined,
          }),
          sort,
          cursor: q.get('cursor') || undefined,
          limit: 25,
        });
      } catch (e) {
        if (!(e instanceof InvalidWebCursorError)) throw e;
        error = e.message;
      }
      const now = Date.now();
      const sparkWindow = chartWindow('hour', 24, now);
      const [sparklines, facets] = await Promise.all([
        data.counts(
          s.session.dataset,
          project.id,
          page.issues.map((i) => i.id),
          'hour',
          24,
          now,
        ),
        data.facets(s.session.dataset, project.id),
      ]);
      return kit.html(
        IssuesPage({
          viewer: s.viewer,
          projects,
          project,
          filters,
          facets,
          issues: page.issues,
          sparklines,
          sparkWindow,
          nextCursor: page.nextCursor,
          appUrl: kit.appUrl,
          error,
        }),
      );
    }),
  );

  http.page(
    'POST',
    '/issues/:id/status',
    kit.action(async (event, s, form) => {
      const { storage } = kit.need();
      const status = String(form.get('status') ?? '');
      if (!(SETTABLE_STATUSES as readonly string[]).includes(status)) kit.fail(400, `A status is one of ${SETTABLE_STATUSES.join(', ')}.`);
      const id = decodeURIComponent(event.context.params?.id ?? '');
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const updated = await storage.issues.setStatus(s.session.dataset, projectIds, id, status as (typeof SETTABLE_STATUSES)[number]);
      if (!updated) kit.fail(404, `No issue ${id}.`);
      return kit.redirect(`/issues/${encodeURIComponent(id)}?changed=1`);
    }),
  );

  http.page(
    'GET',
    '/events/:id',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const id = decodeURIComponent(event.context.params?.id ?? '').toLowerCase();
      const doc = await storage.events.get(s.session.dataset, projectIds, id);
      if (!doc) kit.fail(404, `No event ${id}.`);
      const found = JSON.parse(doc) as ErrorEvent;
      return kit.redirect(`/issues/${encodeURIComponent(found.issue_id ?? '')}?event=${encodeURIComponent(found.id)}`);
    }),
  );
}
