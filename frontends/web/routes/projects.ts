// GET /projects (each reachable project with its DSN and keys), and an admin's POST /projects (a new
// project) and POST /projects/keys (a key of one project, its secret shown once).
import type { HttpHost } from '../../../src/http/host.js';
import { CatalogError } from '../../../extensions/catalog/catalog.js';
import { dsnOf, primaryDsn } from '../../api/projects.js';
import type { PageKit, Signed } from '../kit.js';
import { ProjectsPage } from '../pages/admin.js';

export function registerProjectPages(http: HttpHost, kit: PageKit): void {
  const { catalog, appUrl } = kit;

  const projectsPage = async (s: Signed, created?: { id: string; secret: string }) => {
    const projects = await kit.projectsOf(s);
    const keys = await catalog.listKeys();
    return kit.html(
      ProjectsPage({
        viewer: s.viewer,
        appUrl,
        created,
        projects: projects.map((project) => {
          const own = keys.filter((k) => k.project_id === project.id);
          return {
            project,
            dsn: primaryDsn(own, project, appUrl, s.session.dataset),
            keys: own.map((key) => ({ key, dsn: key.kind === 'dsn' && key.public_key ? dsnOf(key.public_key, project, appUrl) : undefined })),
          };
        }),
      }),
    );
  };

  http.page(
    'GET',
    '/projects',
    kit.view((_event, s) => projectsPage(s)),
  );

  http.page(
    'POST',
    '/projects/keys',
    kit.action(async (_event, s, form) => {
      const projectId = String(form.get('project') ?? '');
      if (!(await kit.projectsOf(s)).some((p) => p.id === projectId)) kit.fail(404, `No project ${projectId}.`);
      const name = String(form.get('name') ?? '').trim();
      const dsn = form.get('kind') === 'dsn';
      const created = await catalog.createKey({ dataset: form.get('dataset') === 'test' ? 'test' : 'live', projectId, name: name || undefined, dsn });
      // A DSN key's secret is never used by SDKs (they send the public key): the page lists its DSN instead.
      return dsn ? kit.redirect('/projects') : projectsPage(s, { id: created.key.id, secret: created.secret });
    }, 'admin'),
  );

  http.page(
    'POST',
    '/projects',
    kit.action(async (_event, s, form) => {
      try {
        await catalog.createProject({
          id: String(form.get('id') ?? '').trim(),
          name: String(form.get('name') ?? ''),
          platform: String(form.get('platform') ?? '').trim() || undefined,
          orgId: s.principal.orgId,
        });
      } catch (error) {
        if (error instanceof CatalogError) kit.fail(error.code === 'conflict' ? 409 : 400, error.message);
        throw error;
      }
      return kit.redirect('/projects');
    }, 'admin'),
  );
}
