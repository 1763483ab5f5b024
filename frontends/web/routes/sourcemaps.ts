// GET /sourcemaps (bundles with their files) and an admin's POST /sourcemaps/{id}/delete.
import type { HttpHost } from '../../../src/http/host.js';
import type { Bundle } from '../../../extensions/artifacts/artifacts.js';
import type { PageKit } from '../kit.js';
import { SourcemapsPage } from '../pages/sourcemaps.js';
import { pageOrError } from './lists.js';

const PAGE_SIZE = 50;

export function registerSourcemapPages(http: HttpHost, kit: PageKit): void {
  http.page(
    'GET',
    '/sourcemaps',
    kit.view(async (event, s) => {
      const q = event.url.searchParams;
      const { project, projects } = await kit.pickProject(s, q.get('project'));
      const page = await pageOrError(() => kit.artifacts.list({ dataset: s.session.dataset, projectId: project.id }, PAGE_SIZE, q.get('cursor') || undefined));
      const bundles = (await Promise.all(page.data.map((b) => kit.artifacts.get(b.id)))).filter((b): b is Bundle => b !== undefined);
      const notice = q.get('deleted') ? `Deleted bundle ${q.get('deleted')}.` : (page.error ?? undefined);
      return kit.html(
        SourcemapsPage({
          viewer: s.viewer,
          projects: projects.map((p) => p.id),
          projectId: project.id,
          bundles,
          query: q,
          nextCursor: page.nextCursor,
          notice,
        }),
        page.error ? 400 : 200,
      );
    }),
  );

  http.page(
    'POST',
    '/sourcemaps/:id/delete',
    kit.action(async (event, s) => {
      const id = decodeURIComponent(event.context.params?.id ?? '');
      const bundle = await kit.artifacts.get(id);
      const reachable = new Set((await kit.projectsOf(s)).map((p) => p.id));
      if (!bundle || bundle.dataset !== s.session.dataset || !reachable.has(bundle.project_id)) kit.fail(404, `No source-map bundle ${id}.`);
      await kit.artifacts.delete(bundle.id);
      return kit.redirect(`/sourcemaps?project=${encodeURIComponent(bundle.project_id)}&deleted=${encodeURIComponent(bundle.id)}`);
    }, 'admin'),
  );
}
