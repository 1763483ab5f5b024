// GET /v1/replays, GET /v1/replays/{id} and GET /v1/replays/{id}/segments/{n}.
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { FastResponse } from 'srvx';
import { readProjects } from '../../src/auth/scope.js';
import { errors } from '../../src/http/errors.js';
import { json, principalOf, type RouteDefinition } from '../../src/http/host.js';
import { REPLAY_ID } from '../../src/records/replay.js';
import type { ApiContext } from './context.js';
import {
  DURATION_DOCS,
  LIST_PROJECT_DOC,
  LIST_QUERY_DOCS,
  listBody,
  listProject,
  optional,
  parseDurations,
  parseLimit,
  withCursor,
} from '../../src/http/params.js';

const gunzipAsync = promisify(gunzip);
const PROJECT_DOC = { name: 'project_id', description: 'Look in this project only (default: every project the key reaches)', schema: { type: 'string' } };

export function replayRoutes({ catalog, storage }: ApiContext): RouteDefinition[] {
  const routes: RouteDefinition[] = [];

  routes.push({
    method: 'GET',
    path: '/v1/replays',
    summary: 'List session replays, newest first (by start)',
    tag: 'replays',
    auth: true,
    query: [
      LIST_PROJECT_DOC,
      { name: 'environment', description: 'Replays with a segment of this environment', schema: { type: 'string' } },
      { name: 'release', description: 'Replays with a segment of this release', schema: { type: 'string' } },
      { name: 'user.id', description: 'Replays of this user id', schema: { type: 'string' } },
      { name: 'url', description: 'Replays one of whose URLs contains this text', schema: { type: 'string' } },
      {
        name: 'has_errors',
        description: 'true: replays with error events (that carry the replay id, or listed in error_ids); false: without',
        schema: { type: 'boolean' },
      },
      ...DURATION_DOCS,
      ...LIST_QUERY_DOCS,
    ],
    responses: { 200: '{data: [replay summary], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const q = ctx.query;
      const limit = parseLimit(q);
      const hasErrorsText = optional(q, 'has_errors');
      if (hasErrorsText !== undefined && hasErrorsText !== 'true' && hasErrorsText !== 'false')
        throw errors.invalidParameter('has_errors', 'must be true or false');
      const durations = parseDurations(q);
      const project = await listProject(catalog, principal, q);
      const page = await withCursor(() =>
        storage.replays.list(
          {
            dataset: principal.dataset,
            projectId: project.id,
            environment: optional(q, 'environment'),
            release: optional(q, 'release'),
            userId: optional(q, 'user.id'),
            url: optional(q, 'url'),
            hasErrors: hasErrorsText === undefined ? undefined : hasErrorsText === 'true',
            ...durations,
          },
          limit,
          optional(q, 'cursor'),
        ),
      );
      return json(ctx, 200, listBody(page));
    },
  });

  routes.push({
    method: 'GET',
    path: '/v1/replays/:id',
    summary: 'Get a replay: times, duration, URLs, user, error bookmarks, trace ids and its segments (streams)',
    tag: 'replays',
    auth: true,
    query: [PROJECT_DOC],
    responses: { 200: 'The replay', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const projects = await readProjects(catalog, principal, optional(ctx.query, 'project_id'));
      const id = ctx.params.id;
      const replay = REPLAY_ID.test(id)
        ? await storage.replays.get(
            principal.dataset,
            projects.map((p) => p.id),
            id,
          )
        : undefined;
      if (!replay) throw errors.notFound(`no replay ${id}`);
      return json(ctx, 200, replay);
    },
  });

  routes.push({
    method: 'GET',
    path: '/v1/replays/:id/segments/:segment',
    summary: "A replay segment's rrweb events (a JSON array), gzip-encoded when the client accepts gzip",
    tag: 'replays',
    auth: true,
    query: [PROJECT_DOC],
    responses: { 200: 'The JSON array of rrweb events', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const projects = await readProjects(catalog, principal, optional(ctx.query, 'project_id'));
      const { id, segment } = ctx.params;
      const n = /^\d{1,9}$/.test(segment) ? Number(segment) : undefined;
      const gz =
        REPLAY_ID.test(id) && n !== undefined
          ? await storage.replays.segment(
              principal.dataset,
              projects.map((p) => p.id),
              id,
              n,
            )
          : undefined;
      if (!gz) throw errors.notFound(`no segment ${segment} of replay ${id}`);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': ctx.requestId, vary: 'Accept-Encoding' };
      // The stored bytes are gzip: sent as they are to a client that takes gzip, inflated otherwise.
      if (acceptsGzip(ctx.event.req.headers.get('accept-encoding')))
        return new FastResponse(gz, { status: 200, headers: { ...headers, 'content-encoding': 'gzip' } });
      return new FastResponse(await gunzipAsync(gz), { status: 200, headers });
    },
  });
  return routes;
}

/** Whether Accept-Encoding allows gzip (q=0 refuses it). */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*' && coding.trim() !== 'x-gzip') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
