// POST /v1/issues/{id}/merge, GET /v1/issues/{id}/fingerprints, POST /v1/issues/{id}/unmerge,
// POST /v1/issues/{id}/comments and GET /v1/issues/{id}/activity (issue #26).
import type { Principal } from '../../src/auth/authenticator.js';
import { reachableProjects } from '../../src/auth/scope.js';
import { readJson } from '../../src/http/body.js';
import { errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../src/http/cursor.js';
import { MAX_COMMENT_CHARS, type Activity, type Actor } from '../../extensions/issues/issue-activity.js';
import { MAX_MERGE_SOURCES, TriageNotFound, TriageRefusal } from '../../extensions/query/issue-merges.js';
import type { Issue } from '../../extensions/query/issues.js';
import type { ApiContext } from './context.js';
import { optional, parseLimit } from '../../src/http/params.js';

const BODY_BYTES = 64 * 1024;
const ISSUE_ID = /^[0-9a-f]{16}$/;
const COMMON = { 400: 'invalid_json or validation_failed', 401: 'unauthorized', 404: 'not_found', 413: 'payload_too_large', 415: 'unsupported_media_type' };

/** What a key's request is done as. */
export const keyActor = (principal: Principal): Actor => ({ type: 'key', id: principal.keyId });

/** A list of issue ids (16 lowercase hex) under `name`, 1 to `max` of them. */
function idList(body: unknown, name: string, max: number): string[] {
  const value = typeof body === 'object' && body !== null && name in body ? (body as Record<string, unknown>)[name] : undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > max)
    throw errors.validation(`${name} is invalid`, [{ path: name, message: `must be a list of 1 to ${max} ids` }]);
  value.forEach((id, i) => {
    if (typeof id !== 'string' || !ISSUE_ID.test(id))
      throw errors.validation(`${name} is invalid`, [{ path: `${name}[${i}]`, message: 'must be an issue id (16 hex digits)' }]);
  });
  return value as string[];
}

/** The JSON body of a route that takes a list of issue ids. */
function idListBody(name: string, max: number) {
  const items = { type: 'string', pattern: '^[0-9a-f]{16}$' };
  return {
    contentType: 'application/json',
    schema: { type: 'object', required: [name], properties: { [name]: { type: 'array', minItems: 1, maxItems: max, items } } },
  };
}

export function activityView(entry: Activity): Record<string, unknown> {
  return { id: entry.id, issue_id: entry.issue_id, kind: entry.kind, actor: entry.actor, data: entry.data, at: new Date(entry.at).toISOString() };
}

export function issueMergeRoutes({ catalog, storage, appUrl }: ApiContext): RouteDefinition[] {
  const present = (issue: Issue) => ({ ...issue, permalink: `${appUrl}/issues/${issue.id}` });
  const scope = async (ctx: RequestContext) => {
    const principal = principalOf(ctx);
    return { principal, projectIds: (await reachableProjects(catalog, principal)).map((p) => p.id) };
  };
  const findIssue = async (ctx: RequestContext): Promise<{ principal: Principal; projectIds: string[]; issue: Issue }> => {
    const { principal, projectIds } = await scope(ctx);
    const issue = await storage.issues.get(principal.dataset, projectIds, ctx.params.id);
    if (!issue) throw errors.notFound(`no issue ${ctx.params.id}`);
    return { principal, projectIds, issue };
  };
  /** Refusals and unknown ids as the API's error bodies. */
  const answering = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof TriageRefusal) throw errors.validation(error.message, [{ path: error.path, message: error.message }]);
      if (error instanceof TriageNotFound) throw errors.notFound(error.message);
      throw error;
    }
  };

  return [
    {
      method: 'POST',
      path: '/v1/issues/:id/merge',
      summary: 'Merge issues of the same project and dataset into this one: their events and fingerprints become its own',
      tag: 'issues',
      auth: true,
      requestBody: idListBody('issue_ids', MAX_MERGE_SOURCES),
      responses: { 200: 'The target issue, with the merged issues\u2019 events', ...COMMON },
      handler: async (ctx) => {
        const sources = idList(await readJson(ctx.event, BODY_BYTES), 'issue_ids', MAX_MERGE_SOURCES);
        const { principal, projectIds } = await scope(ctx);
        const merged = await answering(() => storage.merges.merge(principal.dataset, projectIds, ctx.params.id, sources, keyActor(principal)));
        return json(ctx, 200, present(merged));
      },
    },
    {
      method: 'GET',
      path: '/v1/issues/:id/fingerprints',
      summary: "The issue's fingerprints (grouping ids), with their events' count, first and last seen",
      tag: 'issues',
      auth: true,
      responses: { 200: '{data: [{fingerprint, count, first_seen, last_seen, merged_from}]}', 401: 'unauthorized', 404: 'not_found' },
      handler: async (ctx) => {
        const { principal, issue } = await findIssue(ctx);
        return json(ctx, 200, { data: await storage.merges.fingerprints(principal.dataset, issue) });
      },
    },
    {
      method: 'POST',
      path: '/v1/issues/:id/unmerge',
      summary: 'Move fingerprints and their events out of the issue: back to the issue they came from, or to a new one',
      tag: 'issues',
      auth: true,
      requestBody: idListBody('fingerprints', 1000),
      responses: { 200: '{id, issue}: the issue the fingerprints belong to now', ...COMMON },
      handler: async (ctx) => {
        const fingerprints = idList(await readJson(ctx.event, BODY_BYTES), 'fingerprints', 1000);
        const { principal, projectIds } = await scope(ctx);
        const moved = await answering(() => storage.merges.unmerge(principal.dataset, projectIds, ctx.params.id, fingerprints, keyActor(principal)));
        return json(ctx, 200, { id: moved.id, issue: present(moved) });
      },
    },
    {
      method: 'POST',
      path: '/v1/issues/:id/comments',
      summary: 'Comment on an issue (Markdown; the web app renders a safe subset and never raw HTML)',
      tag: 'issues',
      auth: true,
      requestBody: {
        contentType: 'application/json',
        schema: { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1, maxLength: MAX_COMMENT_CHARS } } },
      },
      responses: { 201: 'The comment, as an activity entry', ...COMMON },
      handler: async (ctx) => {
        const body = await readJson(ctx.event, BODY_BYTES);
        const text = typeof body === 'object' && body !== null && 'text' in body ? body.text : undefined;
        if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_COMMENT_CHARS)
          throw errors.validation('the text is invalid', [{ path: 'text', message: `must be text of 1 to ${MAX_COMMENT_CHARS} characters` }]);
        const { principal, issue } = await findIssue(ctx);
        return json(ctx, 201, activityView(await storage.merges.comment(principal.dataset, issue, text, keyActor(principal))));
      },
    },
    {
      method: 'GET',
      path: '/v1/issues/:id/activity',
      summary: "The issue's timeline, newest first: first seen, regressions, escalations, status and assignee changes, merges, unmerges, comments",
      tag: 'issues',
      auth: true,
      query: [
        { name: 'limit', description: 'Entries per page (1 to 500, default 100)', schema: { type: 'integer', minimum: 1, maximum: 500 } },
        { name: 'cursor', description: 'next_cursor of the previous page', schema: { type: 'string' } },
      ],
      responses: {
        200: '{data: [{id, issue_id, kind, actor, data, at}], has_more, next_cursor}',
        400: 'invalid_parameter',
        401: 'unauthorized',
        404: 'not_found',
      },
      handler: async (ctx) => {
        const limit = parseLimit(ctx.query, 100, 500);
        let before: { at: number; id: string } | undefined;
        const cursor = optional(ctx.query, 'cursor');
        try {
          if (cursor !== undefined) {
            const decoded = decodeCursor(cursor);
            before = { at: Number(decoded.micros / 1000n), id: decoded.id };
          }
        } catch (error) {
          if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
          throw error;
        }
        // A merged issue keeps its own timeline (it ends with merged_into).
        const { principal, projectIds } = await scope(ctx);
        const into = storage.merges.redirects.mergedInto(principal.dataset, projectIds, ctx.params.id);
        const issue = into ? { id: ctx.params.id, project_id: into.projectId } : (await findIssue(ctx)).issue;
        const page = await storage.merges.timeline(principal.dataset, issue, limit, before);
        const last = page.entries[page.entries.length - 1];
        const next = page.hasMore && last ? encodeCursor({ micros: BigInt(last.at) * 1000n, id: last.id }) : null;
        return json(ctx, 200, { data: page.entries.map(activityView), has_more: next !== null, next_cursor: next });
      },
    },
  ];
}
