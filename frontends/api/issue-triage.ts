// Triage over the API: the body PATCH /v1/issues/{id} and the bulk PATCH /v1/issues take
// (`status`, `assignee`), the list's search parameters (`query`, `assignee`, `sort`), and the bulk
// route itself: every issue named (or every one a query matches) changes, or none does.
import { keyActor } from './issue-merge.js';
import { recordBulkActivity } from '../../extensions/query/bulk-activity.js';
import type { Principal } from '../../src/auth/authenticator.js';
import type { FieldError } from '../../src/engine/item.js';
import { readJson } from '../../src/http/body.js';
import { ApiError, errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import type { IssueSearch, IssueSortKey } from '../../extensions/query/issue-finder.js';
import { ISSUE_SORT_KEYS } from '../../extensions/query/issue-finder.js';
import { SearchSyntaxError } from '../../extensions/query/issue-search.js';
import type { Actor, TriageChange } from '../../extensions/query/issue-triage.js';
import { SETTABLE_STATUSES, type Issue, type IssueStatus } from '../../extensions/query/issues.js';
import type { Storage } from '../../extensions/query/storage.js';
import type { ApiContext } from './context.js';
import { IGNORE_UNTIL_SCHEMA, ignoreConditionOf } from './issue-ignore.js';
import { listProject, optional, parseEnum } from '../../src/http/params.js';

/** The most issues one bulk change names or a bulk query may match. */
export const MAX_BULK = 1000;
const BODY_LIMIT = 64 * 1024;
const LIST_STATUSES: readonly IssueStatus[] = ['unresolved', 'resolved', 'ignored', 'regressed'];

export const TRIAGE_BODY_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: [...SETTABLE_STATUSES] },
    ids: { type: 'array', items: { type: 'string' }, maxItems: MAX_BULK, description: 'Bulk only: issue ids, with or instead of the id parameters' },
    assignee: { type: ['string', 'null'], description: "A web user's email, or null to unassign" },
    ignore_until: IGNORE_UNTIL_SCHEMA,
  },
};

export const ISSUE_SEARCH_DOCS = [
  { name: 'query', description: 'The search language (docs/api.md, "Searching issues")', schema: { type: 'string', maxLength: 1024 } },
  { name: 'assignee', description: "A web user's email, or none", schema: { type: 'string' } },
  { name: 'sort', description: 'last_seen (default), first_seen, events or users; descending', schema: { type: 'string', enum: [...ISSUE_SORT_KEYS] } },
];

/** An API key acts for no web user; a session's principal (`user:<id>`) for its user. */
export function actorOf(principal: Principal): Actor {
  return { kind: 'key', id: principal.keyId };
}

/** A search language error as the 400 body: `details[0]` carries the token's `position`. */
export function searchError(error: SearchSyntaxError, path = 'query'): ApiError {
  const detail: FieldError & { position: number } = { path, message: error.message, position: error.position };
  return new ApiError(400, 'invalid_parameter', `invalid parameter ${path}: ${error.message}`, [detail]);
}

/** Runs a read that parses the search language, answering its errors with status 400. */
export async function withSearch<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof SearchSyntaxError) throw searchError(error);
    throw error;
  }
}

/** The list's `status`, `query`, `assignee` (an email of the organization, or none) and `sort`. */
export async function listSearch(
  storage: Storage,
  principal: Principal,
  query: URLSearchParams,
  base: IssueSearch,
): Promise<{ search: IssueSearch; sort: IssueSortKey }> {
  const sort = parseEnum(query, 'sort', ISSUE_SORT_KEYS) ?? 'last_seen';
  const search: IssueSearch = { ...base, query: optional(query, 'query') };
  const status = parseEnum(query, 'status', LIST_STATUSES);
  if (status) search.status = status;
  const assignee = optional(query, 'assignee');
  if (assignee === 'none') search.assigneeId = null;
  else if (assignee !== undefined) {
    const user = await storage.triage.assignableUser(principal.orgId, assignee);
    if (!user) throw errors.invalidParameter('assignee', `no web user ${assignee} in this organization (or none)`);
    search.assigneeId = user.id;
  }
  return { search, sort };
}

/** A PATCH body: a JSON object (at most 64 KiB). */
export async function readTriageBody(ctx: RequestContext): Promise<Record<string, unknown>> {
  const body = await readJson(ctx.event, BODY_LIMIT);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.validation('the body is not an object', [{ path: '', message: 'must be an object' }]);
  return body as Record<string, unknown>;
}

/** The change a PATCH body asks for: `status` and/or `assignee` (an email of the organization, or null). */
export async function triageChangeOf(fields: Record<string, unknown>, storage: Storage, principal: Principal): Promise<TriageChange> {
  const change: TriageChange = {};
  if ('status' in fields) {
    const status = fields.status;
    if (typeof status !== 'string' || !(SETTABLE_STATUSES as readonly string[]).includes(status))
      throw errors.validation('the status is invalid', [{ path: 'status', message: `must be one of ${SETTABLE_STATUSES.join(', ')}` }]);
    change.status = status as TriageChange['status'];
  }
  const ignoreUntil = ignoreConditionOf(fields, change.status ?? '');
  if (ignoreUntil) change.ignoreUntil = ignoreUntil;
  if ('assignee' in fields) {
    const email = fields.assignee;
    if (email === null) change.assignee = null;
    else if (typeof email !== 'string' || email.length > 320)
      throw errors.validation('the assignee is invalid', [{ path: 'assignee', message: "must be a web user's email, or null" }]);
    else {
      const user = await storage.triage.assignableUser(principal.orgId, email);
      if (!user) throw errors.validation('the assignee is invalid', [{ path: 'assignee', message: `no web user ${email} in this organization` }]);
      change.assignee = user;
    }
  }
  if (change.status === undefined && change.assignee === undefined)
    throw errors.validation('nothing to change', [{ path: 'status', message: 'give status, assignee or both' }]);
  return change;
}

export async function readTriageChange(ctx: RequestContext, storage: Storage, principal: Principal): Promise<TriageChange> {
  return triageChangeOf(await readTriageBody(ctx), storage, principal);
}

/** The ids a bulk change names: `id` query parameters and the body's `ids` (a URL holds only so many). */
function bulkIds(query: URLSearchParams, fields: Record<string, unknown>): string[] {
  const fromBody = fields.ids ?? [];
  if (!Array.isArray(fromBody) || fromBody.length > MAX_BULK || !fromBody.every((id) => typeof id === 'string' && id.length <= 64))
    throw errors.validation('the ids are invalid', [{ path: 'ids', message: `must be a list of at most ${MAX_BULK} issue ids` }]);
  const ids = [...new Set([...query.getAll('id'), ...(fromBody as string[])].filter((id) => id !== ''))];
  if (ids.length > MAX_BULK) throw errors.invalidParameter('id', `at most ${MAX_BULK} ids`);
  return ids;
}

/** PATCH /v1/issues: the bulk change. */
export function bulkTriageRoutes({ catalog, storage }: ApiContext): RouteDefinition[] {
  return [
    {
      method: 'PATCH',
      path: '/v1/issues',
      summary: `Change the status and/or assignee of many issues at once (every one or none): by id (up to ${MAX_BULK}) or by query`,
      tag: 'issues',
      auth: true,
      query: [
        { name: 'project_id', description: 'The project (required with an organization key)', schema: { type: 'string' } },
        { name: 'id', description: `An issue id; repeat it (up to ${MAX_BULK})`, schema: { type: 'string' } },
        { name: 'query', description: `Instead of ids: every issue the search language matches (at most ${MAX_BULK})`, schema: { type: 'string' } },
      ],
      requestBody: { contentType: 'application/json', schema: TRIAGE_BODY_SCHEMA },
      responses: {
        200: '{updated: n}',
        400: 'invalid_json, validation_failed or invalid_parameter',
        401: 'unauthorized',
        404: 'not_found (the project, or any of the issues: then nothing changed)',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const project = await listProject(catalog, principal, ctx.query);
        const fields = await readTriageBody(ctx);
        const ids = bulkIds(ctx.query, fields);
        const query = optional(ctx.query, 'query');
        if (ids.length > 0 && query !== undefined) throw errors.invalidParameter('query', 'give ids or a query, not both');
        if (ids.length === 0 && query === undefined) throw errors.invalidParameter('id', 'give at least one id, or a query');
        const change = await triageChangeOf(fields, storage, principal);
        let issues: Issue[];
        if (query !== undefined) {
          issues = await withSearch(() => storage.issueFinder.matching({ dataset: principal.dataset, projectId: project.id, query }, MAX_BULK));
          if (issues.length > MAX_BULK) throw errors.invalidParameter('query', `matches more than ${MAX_BULK} issues: narrow it`);
        } else {
          issues = await storage.issueFinder.byIds(principal.dataset, project.id, ids);
          const found = new Set(issues.map((i) => i.id));
          const missing = ids.filter((id) => !found.has(id));
          if (missing.length > 0)
            throw errors.notFound(`no issue ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''} in project ${project.id}: nothing changed`);
        }
        const updated = await storage.triage.apply(principal.dataset, issues, change, actorOf(principal), (changed) =>
          storage.issueFinder.byIds(principal.dataset, project.id, changed),
        );
        await recordBulkActivity(storage, principal.dataset, project.id, issues, keyActor(principal));
        return json(ctx, 200, { updated });
      },
    },
  ];
}
