// POST /issues/{id}/ignore: the issue page's "ignore until" choices (a preset `<kind>:<value>`,
// or a time, taken as UTC), with the same checks as PATCH /v1/issues/{id} {ignore_until}.
import type { HttpHost } from '../../../src/http/host.js';
import { parseIgnoreCondition } from '../../../src/records/ignore-until.js';
import type { PageKit } from '../kit.js';

const PRESET = /^(count|minutes|users):(\d{1,7})$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

export function registerIssueIgnorePages(http: HttpHost, kit: PageKit): void {
  http.page(
    'POST',
    '/issues/:id/ignore',
    kit.action(async (event, s, form) => {
      const { storage } = kit.need();
      const id = decodeURIComponent(event.context.params?.id ?? '');
      const time = String(form.get('time') ?? '').slice(0, 40);
      const preset = PRESET.exec(String(form.get('until') ?? '').slice(0, 40));
      let given: Record<string, unknown>;
      if (time !== '') {
        if (!LOCAL_TIME.test(time)) kit.fail(400, 'The time is a date and time, e.g. 2026-12-01T09:00.');
        given = { until: `${time.length === 16 ? `${time}:00` : time}Z` };
      } else if (preset) given = { [preset[1]]: Number(preset[2]) };
      else kit.fail(400, 'Choose how long to ignore the issue.');
      const parsed = parseIgnoreCondition(given);
      if ('errors' in parsed) kit.fail(400, `Cannot ignore until that: ${parsed.errors.map((e) => e.message).join('; ')}.`);
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const updated = await storage.issues.setStatus(s.session.dataset, projectIds, id, 'ignored', parsed.condition);
      if (!updated) kit.fail(404, `No issue ${id}.`);
      return kit.redirect(`/issues/${encodeURIComponent(id)}?changed=1`);
    }),
  );
}
