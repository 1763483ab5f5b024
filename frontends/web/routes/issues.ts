// The issues: the issue page behind every permalink
// (GET /issues/{id} is the API's route: it answers JSON to a key and this page to a browser),
// POST /issues/{id}/status, and GET /events/{id} (to the event on its issue's page).
import type { Dataset } from '../../../src/engine/item.js';
import type { HttpHost, PageHandler } from '../../../src/http/host.js';
import type { ErrorEvent } from '../../../src/records/event.js';
import { SETTABLE_STATUSES, chartWindow } from '../../../extensions/query/index.js';
import { userActor } from './issue-triage.js';
import type { PageKit } from '../kit.js';
import { IssuePage } from '../pages/issue.js';

/** The issue page, built before the routes are mounted: the API's permalink route serves it to browsers. */
export function issuePageHandler(kit: PageKit): PageHandler {
  return kit.view(async (event, s) => {
    const { storage } = kit.need();
    const data = storage.issueViews;
    const id = decodeURIComponent(event.context.params?.id ?? '');
    const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
    const issue = await storage.issues.get(s.session.dataset, projectIds, id);
    const mergedInto = issue ? undefined : storage.merges.redirects.mergedInto(s.session.dataset, projectIds, id);
    if (mergedInto) return kit.redirect(`/issues/${encodeURIComponent(mergedInto.issueId)}${event.url.search}`); // a merged issue's permalink
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
    const [timeline, tags, users] = await Promise.all([
      data.issueTimeline(s.session.dataset, issue, { unit, buckets, now }, wanted),
      data.tagDistribution(s.session.dataset, issue.project_id, issue.id, start),
      storage.triage.assignableUsers(s.principal.orgId),
    ]);
    if (wanted && !timeline.event) kit.fail(404, `Event ${wanted} is not an event of this issue.`);
    const doc = timeline.event ? await storage.events.get(s.session.dataset, [issue.project_id], timeline.event) : undefined;
    const event_ = doc ? (JSON.parse(doc) as ErrorEvent) : undefined;
    const labels = Array.from({ length: buckets }, (_, i) => {
      const t = new Date(end - (buckets - i) * size).toISOString();
      return unit === 'hour' ? `${t.slice(11, 16)} UTC` : t.slice(0, 10);
    });
    const assigned = q.get('assigned') ? `Assigned to ${issue.assignee?.email ?? 'nobody'}.` : undefined;
    const notice = q.get('changed') ? `Status set to ${issue.status}.` : assigned;
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
        ignoreUntil: storage.issues.ignoreUntil(issue.id),
        users,
      }),
    );
  });
}

export function registerIssuePages(http: HttpHost, kit: PageKit): void {
  // GET /issues, the issues list with triage, is routes/triage.ts's.

  http.page(
    'POST',
    '/issues/:id/status',
    kit.action(async (event, s, form) => {
      const { storage } = kit.need();
      const status = String(form.get('status') ?? '');
      if (!(SETTABLE_STATUSES as readonly string[]).includes(status)) kit.fail(400, `A status is one of ${SETTABLE_STATUSES.join(', ')}.`);
      const id = decodeURIComponent(event.context.params?.id ?? '');
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const before = await storage.issues.get(s.session.dataset, projectIds, id);
      const updated = before && (await storage.issues.setStatus(s.session.dataset, projectIds, id, status as (typeof SETTABLE_STATUSES)[number]));
      if (!before || !updated) kit.fail(404, `No issue ${id}.`);
      await storage.merges.recordChanges(s.session.dataset, [{ before, after: updated }], userActor(s));
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
