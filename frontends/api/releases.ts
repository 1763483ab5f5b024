// GET /v1/releases and GET /v1/releases/{version}: what each release of a project brought (events,
// new and regressed issues) and its release health (crash-free sessions and users).
import { errors } from '../../src/http/errors.js';
import { json, principalOf, type RouteDefinition } from '../../src/http/host.js';
import type { ApiContext } from './context.js';
import { LIST_PROJECT_DOC, LIST_QUERY_DOCS, listBody, listProject, optional, parseLimit, withCursor } from '../../src/http/params.js';

export function releaseRoutes({ catalog, storage }: ApiContext): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/v1/releases',
      summary: 'List releases (named by error events or sessions), most recently seen first, with event and new-issue counts and crash-free rates',
      tag: 'releases',
      auth: true,
      query: [LIST_PROJECT_DOC, ...LIST_QUERY_DOCS],
      responses: { 200: '{data: [release summary], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const limit = parseLimit(ctx.query);
        const project = await listProject(catalog, principal, ctx.query);
        const page = await withCursor(() => storage.releases.list(principal.dataset, project.id, limit, optional(ctx.query, 'cursor')));
        return json(ctx, 200, listBody(page));
      },
    },
    {
      method: 'GET',
      path: '/v1/releases/:version',
      summary: 'One release: first and last seen, events, environments, new and regressed issues, crash-free sessions and users',
      tag: 'releases',
      auth: true,
      query: [LIST_PROJECT_DOC],
      responses: { 200: 'The release', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const project = await listProject(catalog, principal, ctx.query);
        const version = ctx.params.version;
        const release = await storage.releases.get(principal.dataset, project.id, version);
        if (!release) throw errors.notFound(`no release ${version} in project ${project.id}`);
        return json(ctx, 200, release);
      },
    },
  ];
}
