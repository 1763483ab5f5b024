// GET /v1/issues, GET /v1/issues/{id}, PATCH /v1/issues/{id}, and the permalink {app_url}/issues/{id}.
import type { Principal } from '../auth/authenticator.js';
import { reachableProjects } from '../auth/scope.js';
import { readJson } from '../http/body.js';
import { errors } from '../http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../http/host.js';
import { InvalidCursorError } from '../storage/cursor.js';
import { SETTABLE_STATUSES, type Issue, type IssueStatus } from '../storage/issues.js';
import type { ApiContext } from './context.js';
import { keyActor } from './issue-triage.js';
import { LIST_PROJECT_DOC, LIST_QUERY_DOCS, listProject, optional, parseEnum, parseLimit } from './params.js';

const ALL_STATUSES: readonly IssueStatus[] = ['unresolved', 'resolved', 'ignored', 'regressed'];

export function issueRoutes({ catalog, storage, appUrl, issuePage }: ApiContext): RouteDefinition[] {
  const present = (issue: Issue & { merged_into?: string }) => ({ ...issue, permalink: `${appUrl}/issues/${issue.id}` });

  /** The issue, if it exists in the key's dataset and a project the key reaches; else 404. */
  const findIssue = async (principal: Principal, id: string): Promise<{ issue: Issue; projectIds: string[] }> => {
    const projectIds = (await reachableProjects(catalog, principal)).map((p) => p.id);
    const issue = await storage.issues.get(principal.dataset, projectIds, id);
    if (!issue) throw errors.notFound(`no issue ${id}`);
    return { issue, projectIds };
  };
  /** The issue, or the one it was merged into (with `merged_into`): a merged issue's links keep working. */
  const getIssue = async (ctx: RequestContext) => {
    const principal = principalOf(ctx);
    const projectIds = (await reachableProjects(catalog, principal)).map((p) => p.id);
    const issue = await storage.triage.resolve(principal.dataset, projectIds, ctx.params.id);
    if (!issue) throw errors.notFound(`no issue ${ctx.params.id}`);
    return json(ctx, 200, present(issue));
  };
  const issueResponses = { 200: 'The issue', 401: 'unauthorized', 404: 'not_found' };

  return [
    {
      method: 'GET',
      path: '/v1/issues',
      summary: 'List issues, most recently seen first',
      tag: 'issues',
      auth: true,
      query: [
        LIST_PROJECT_DOC,
        { name: 'status', description: 'unresolved, resolved, ignored or regressed', schema: { type: 'string', enum: [...ALL_STATUSES] } },
        ...LIST_QUERY_DOCS,
      ],
      responses: { 200: '{data: [issue], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const limit = parseLimit(ctx.query);
        const status = parseEnum(ctx.query, 'status', ALL_STATUSES);
        const project = await listProject(catalog, principal, ctx.query);
        try {
          const page = await storage.issues.list({ dataset: principal.dataset, projectId: project.id, status }, limit, optional(ctx.query, 'cursor'));
          return json(ctx, 200, { data: page.issues.map(present), has_more: page.nextCursor !== null, next_cursor: page.nextCursor });
        } catch (error) {
          if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
          throw error;
        }
      },
    },
    { method: 'GET', path: '/v1/issues/:id', summary: 'Get one issue', tag: 'issues', auth: true, responses: issueResponses, handler: getIssue },
    {
      method: 'GET',
      path: '/issues/:id',
      summary: 'The permalink of an issue ({app_url}/issues/{id}); answers like GET /v1/issues/{id}',
      tag: 'issues',
      auth: true,
      responses: issueResponses,
      handler: getIssue,
      browserPage: issuePage,
    },
    {
      method: 'PATCH',
      path: '/v1/issues/:id',
      summary: 'Change the status of an issue',
      tag: 'issues',
      auth: true,
      requestBody: {
        contentType: 'application/json',
        schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: [...SETTABLE_STATUSES] } } },
      },
      responses: {
        200: 'The updated issue',
        400: 'invalid_json or validation_failed',
        401: 'unauthorized',
        404: 'not_found',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const body = await readJson(ctx.event, 64 * 1024);
        const status = typeof body === 'object' && body !== null && 'status' in body ? body.status : undefined;
        if (typeof status !== 'string' || !(SETTABLE_STATUSES as readonly string[]).includes(status))
          throw errors.validation('the status is invalid', [{ path: 'status', message: `must be one of ${SETTABLE_STATUSES.join(', ')}` }]);
        const { issue, projectIds } = await findIssue(principal, ctx.params.id);
        const updated = await storage.issues.setStatus(principal.dataset, projectIds, issue.id, status as (typeof SETTABLE_STATUSES)[number]);
        if (!updated) throw errors.notFound(`no issue ${ctx.params.id}`);
        await storage.triage.recordChanges(principal.dataset, issue, updated, keyActor(principal));
        return json(ctx, 200, present(updated));
      },
    },
  ];
}
