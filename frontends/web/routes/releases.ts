// GET /releases and GET /releases/{version}: what GET /v1/releases serves, as pages.
import type { HttpHost } from '../../../src/http/host.js';
import { pageOrError } from './lists.js';
import type { PageKit } from '../kit.js';
import { ReleasePage, ReleasesPage } from '../pages/releases.js';

export function registerReleasePages(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/releases',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      const q = event.url.searchParams;
      const { project, projects } = await kit.pickProject(s, q.get('project'));
      const base = { viewer: s.viewer, projects: projects.map((p) => p.id), project: project.id, query: q, releases: [], nextCursor: null };
      if (!storage.reads('events')) kit.fail(404, 'No exporter of this service stores events.');
      const page = await pageOrError(() => storage.releases.list(s.session.dataset, project.id, 50, q.get('cursor') || undefined));
      return kit.html(ReleasesPage({ ...base, releases: page.data, nextCursor: page.nextCursor, error: page.error }), page.error ? 400 : 200);
    }),
  );

  http.page(
    'GET',
    '/releases/:version',
    kit.view(async (event, s) => {
      const { storage } = kit.need();
      const { project } = await kit.pickProject(s, event.url.searchParams.get('project'));
      const raw = event.context.params?.version ?? '';
      let version = raw;
      try {
        version = decodeURIComponent(raw);
      } catch {
        kit.fail(404, `No release ${raw}.`); // not percent-encoding this server wrote
      }
      if (!storage.reads('events')) kit.fail(404, 'No exporter of this service stores events.');
      const release = await storage.releases.get(s.session.dataset, project.id, version);
      if (!release) kit.fail(404, `No release ${version} in project ${project.id}.`);
      return kit.html(ReleasePage({ viewer: s.viewer, release }));
    }),
  );
}
