// GET /keys, and an admin's POST /keys (an API key of the organization or of one project, its
// secret shown once) and POST /keys/{id}/revoke (which the projects page's forms use too).
import type { HttpHost } from '../../../src/http/host.js';
import { CatalogError } from '../../../extensions/catalog/catalog.js';
import type { PageKit, Signed } from '../kit.js';
import { KeysPage } from '../pages/keys.js';

export function registerKeyPages(http: HttpHost, kit: PageKit): void {
  /** The organization's keys the session may see: its organization keys and its projects' keys. */
  const visibleKeys = async (s: Signed) => {
    const projects = new Set((await kit.projectsOf(s)).map((p) => p.id));
    const keys = (await kit.catalog.listKeys()).filter((k) => k.org_id === s.principal.orgId && (k.project_id === null || projects.has(k.project_id)));
    return { keys, projects: [...projects] };
  };

  const keysPage = async (s: Signed, created?: { id: string; secret: string }) => {
    const { keys, projects } = await visibleKeys(s);
    return kit.html(KeysPage({ viewer: s.viewer, keys, projects, created }), 200, created ? { 'cache-control': 'no-store' } : {});
  };

  http.page(
    'GET',
    '/keys',
    kit.view((_event, s) => keysPage(s)),
  );

  http.page(
    'POST',
    '/keys',
    kit.action(async (_event, s, form) => {
      const scope = String(form.get('scope') ?? '');
      const { projects } = await visibleKeys(s);
      if (scope !== '' && !projects.includes(scope)) kit.fail(404, `No project ${scope}.`);
      const name = String(form.get('name') ?? '').trim();
      try {
        const created = await kit.catalog.createKey({
          dataset: form.get('dataset') === 'test' ? 'test' : 'live',
          projectId: scope || undefined,
          orgId: s.principal.orgId,
          name: name || undefined,
        });
        return keysPage(s, { id: created.key.id, secret: created.secret });
      } catch (error) {
        if (error instanceof CatalogError) kit.fail(400, error.message);
        throw error;
      }
    }, 'admin'),
  );

  http.page(
    'POST',
    '/keys/:id/revoke',
    kit.action(async (event, s, form) => {
      const id = decodeURIComponent(event.context.params?.id ?? '');
      const key = (await visibleKeys(s)).keys.find((k) => k.id === id);
      if (!key) kit.fail(404, `No key ${id}.`);
      if (!key.revoked_at) await kit.catalog.revokeKey(id);
      return kit.redirect(form.get('next') === '/projects' ? '/projects' : '/keys');
    }, 'admin'),
  );
}
