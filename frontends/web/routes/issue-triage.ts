// GET /issues/{id}/triage and its forms (issue #26): merge similar issues into this one, unmerge
// fingerprints, comment; each change is recorded in the activity as the signed-in user.
import type { H3Event } from 'h3';
import type { HttpHost } from '../../../src/http/host.js';
import { MAX_COMMENT_CHARS, type Actor } from '../../../extensions/issues/issue-activity.js';
import { MAX_MERGE_SOURCES, TriageNotFound, TriageRefusal } from '../../../extensions/query/issue-merges.js';
import type { PageKit, Signed } from '../kit.js';
import { TriagePage } from '../pages/issue-triage.js';

const ISSUE_ID = /^[0-9a-f]{16}$/;
const NOTICES: Record<string, string> = {
  merged: 'Merged: their events are this issue’s now.',
  unmerged: 'Unmerged: these fingerprints and their events are this issue’s now.',
  commented: 'Comment added.',
};

export const userActor = (s: Signed): Actor => ({ type: 'user', id: s.session.user.id, email: s.session.user.email });

export function registerIssueTriagePages(http: HttpHost, kit: PageKit): void {
  const target = async (event: H3Event, s: Signed) => {
    const { storage } = kit.need();
    const id = decodeURIComponent(event.context.params?.id ?? '');
    const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
    const issue = await storage.issues.get(s.session.dataset, projectIds, id);
    if (!issue) kit.fail(404, `No issue ${id}.`);
    return { storage, issue, projectIds };
  };
  const ids = (form: FormData, name: string, max: number) => {
    const values = form.getAll(name).map(String);
    if (values.length === 0) kit.fail(400, 'Select at least one.');
    if (values.length > max || values.some((v) => !ISSUE_ID.test(v))) kit.fail(400, 'The selection is not valid.');
    return values;
  };
  /** Refusals as error pages (400, 404), like the API's answers. */
  const refusing = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof TriageRefusal) kit.fail(400, error.message);
      if (error instanceof TriageNotFound) kit.fail(404, error.message);
      throw error;
    }
  };
  const triageHref = (id: string, done: string) => `/issues/${encodeURIComponent(id)}/triage?done=${done}`;

  http.page(
    'GET',
    '/issues/:id/triage',
    kit.view(async (event, s) => {
      const { storage, issue } = await target(event, s);
      const dataset = s.session.dataset;
      const [candidates, fingerprints, timeline] = await Promise.all([
        storage.merges.similar(dataset, issue),
        storage.merges.fingerprints(dataset, issue),
        storage.merges.timeline(dataset, issue, 200),
      ]);
      const notice = NOTICES[event.url.searchParams.get('done') ?? ''];
      return kit.html(TriagePage({ viewer: s.viewer, issue, candidates, fingerprints, activity: timeline.entries, notice }));
    }),
  );

  http.page(
    'POST',
    '/issues/:id/merge',
    kit.action(async (event, s, form) => {
      const { storage, issue, projectIds } = await target(event, s);
      const sources = ids(form, 'issue_ids', MAX_MERGE_SOURCES);
      await refusing(() => storage.merges.merge(s.session.dataset, projectIds, issue.id, sources, userActor(s)));
      return kit.redirect(triageHref(issue.id, 'merged'));
    }),
  );

  http.page(
    'POST',
    '/issues/:id/unmerge',
    kit.action(async (event, s, form) => {
      const { storage, issue, projectIds } = await target(event, s);
      const prints = ids(form, 'fingerprints', 1000);
      const moved = await refusing(() => storage.merges.unmerge(s.session.dataset, projectIds, issue.id, prints, userActor(s)));
      return kit.redirect(triageHref(moved.id, 'unmerged'));
    }),
  );

  http.page(
    'POST',
    '/issues/:id/comments',
    kit.action(async (event, s, form) => {
      const { storage, issue } = await target(event, s);
      const text = String(form.get('text') ?? '');
      if (text.trim() === '' || text.length > MAX_COMMENT_CHARS) kit.fail(400, `A comment is 1 to ${MAX_COMMENT_CHARS} characters.`);
      await storage.merges.comment(s.session.dataset, issue, text, userActor(s));
      return kit.redirect(triageHref(issue.id, 'commented'));
    }),
  );
}
