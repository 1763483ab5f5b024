// GET /v1/issues, GET /v1/issues/{id}, PATCH /v1/issues/{id}, and the permalink {app_url}/issues/{id}.
import type { Principal } from '../../src/auth/authenticator.js';
import { reachableProjects } from '../../src/auth/scope.js';
import { errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import { InvalidCursorError } from '../../src/http/cursor.js';
import type { Issue, IssueStatus } from '../../extensions/query/issues.js';
import type { ApiContext } from './context.js';
import { ignoreField } from './issue-ignore.js';
import { actorOf, ISSUE_SEARCH_DOCS, listSearch, readTriageChange, TRIAGE_BODY_SCHEMA, withSearch } from './issue-triage.js';
import { LIST_PROJECT_DOC, LIST_QUERY_DOCS, listProject, optional, parseLimit } from '../../src/http/params.js';
import { keyActor } from './issue-merge.js';

const ALL_STATUSES: readonly IssueStatus[] = ['unresolved', 'resolved', 'ignored', 'regressed'];

export function issueRoutes({ catalog, storage, appUrl, issuePage }: ApiContext): RouteDefinition[] {
  const present = (issue: Issue & { merged_into?: string }) => ({ ...issue, permalink: `${appUrl}/issues/${issue.id}`, ...ignoreField(storage, issue) });

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
    const issue = await storage.merges.resolve(principal.dataset, projectIds, ctx.params.id);
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
        ...ISSUE_SEARCH_DOCS,
        ...LIST_QUERY_DOCS,
      ],
      responses: { 200: '{data: [issue], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const limit = parseLimit(ctx.query);
        const project = await listProject(catalog, principal, ctx.query);
        const { search, sort } = await listSearch(storage, principal, ctx.query, { dataset: principal.dataset, projectId: project.id });
        try {
          const page = await withSearch(() => storage.issueFinder.list(search, sort, limit, optional(ctx.query, 'cursor')));
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
      summary: 'Change the status and/or the assignee of an issue',
      tag: 'issues',
      auth: true,
      requestBody: { contentType: 'application/json', schema: TRIAGE_BODY_SCHEMA },
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
        const change = await readTriageChange(ctx, storage, principal);
        const { issue, projectIds } = await findIssue(principal, ctx.params.id);
        const reread = async () => [await storage.issues.get(principal.dataset, projectIds, issue.id)].filter((i): i is Issue => i !== undefined);
        await storage.triage.apply(principal.dataset, [issue], change, actorOf(principal), reread);
        const updated = await storage.issues.get(principal.dataset, projectIds, issue.id);
        if (!updated) throw errors.notFound(`no issue ${ctx.params.id}`);
        await storage.merges.recordChanges(principal.dataset, [{ before: issue, after: updated }], keyActor(principal));
        return json(ctx, 200, present(updated));
      },
    },
  ];
}
