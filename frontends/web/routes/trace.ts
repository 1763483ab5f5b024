// GET /traces/{id}: the trace waterfall, with links to the error events that carry the trace id.
import type { HttpHost } from '../../../src/http/host.js';
import type { ErrorEvent } from '../../../src/records/event.js';
import type { PageKit } from '../kit.js';
import { TracePage, type TraceEventLink, type TraceRecord } from '../pages/trace.js';

export function registerTracePage(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/traces/:id',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      if (!storage.reads('traces')) kit.fail(404, 'No exporter of this service stores traces.');
      const projectIds = (await kit.projectsOf(s)).map((p) => p.id);
      const raw = decodeURIComponent(event.context.params?.id ?? '');
      const id = /^[0-9a-fA-F]+$/.test(raw) ? raw.toLowerCase() : raw;
      const doc = await storage.traces.get(s.session.dataset, projectIds, id, { offset: 0, limit: 2000 });
      if (!doc) kit.fail(404, `No trace ${id}.`);
      const trace = JSON.parse(doc) as TraceRecord;
      const events = new Map<string, TraceEventLink>();
      for (const eventId of trace.error_event_ids.slice(0, 50)) {
        const found = await storage.events.get(s.session.dataset, projectIds, eventId);
        if (!found) continue;
        const event = JSON.parse(found) as ErrorEvent;
        events.set(eventId, { issueId: event.issue_id, title: event.title ?? `${event.exception.type}: ${event.exception.value}` });
      }
      return kit.html(TracePage({ viewer: s.viewer, trace, events }));
    }),
  );
}
