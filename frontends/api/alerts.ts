// /v1/alerts: alert rules (create, list, read with state and recent firings, change, delete) and
// test notifications. Rules follow the key's scope (a project key reaches its project's rules only)
// and dataset (live keys see live rules, test keys sandbox rules).
import { FastResponse } from 'srvx';
import type { Principal } from '../../src/auth/authenticator.js';
import { resolveProject } from '../../src/auth/scope.js';
import { readJson } from '../../src/http/body.js';
import { ApiError, errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import { ALERT_TYPES, MAX_EMAIL_RECIPIENTS, validateRule, type AlertAction, type AlertRuleInput } from '../../src/records/alert-rule.js';
import { RuleLimitError } from '../../extensions/alerts/alert-limits.js';
import type { AlertRule } from '../../extensions/alerts/alert-rules.js';
import { DestinationsRefusedError } from '../../extensions/alerts/alerts.js';
import type { FiringRecord } from '../../extensions/alerts/alert-outbox.js';
import { InvalidCursorError } from '../../src/http/cursor.js';
import type { ApiContext } from './context.js';
import { LIST_PROJECT_DOC, LIST_QUERY_DOCS, listProject, optional, parseEnum, parseLimit } from '../../src/http/params.js';

const BODY_LIMIT = 64 * 1024;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A rule as the API shows it: secrets are never returned, only whether one is set. */
export function presentRule(rule: AlertRule): Record<string, unknown> {
  return {
    id: rule.id,
    project_id: rule.project_id,
    name: rule.name,
    type: rule.type,
    environment: rule.environment,
    enabled: rule.enabled,
    frequency: rule.frequency,
    conditions: rule.conditions,
    actions: rule.actions.map(presentAction),
    state: rule.state,
    state_changed_at: iso(rule.state_changed_at),
    last_evaluated_at: iso(rule.last_evaluated_at),
    last_value: rule.last_value,
    last_fired_at: iso(rule.last_fired_at),
    created_at: iso(rule.created_at),
    updated_at: iso(rule.updated_at),
  };
}

function presentAction(action: AlertAction): Record<string, unknown> {
  if (action.type !== 'webhook') return { ...action };
  const { secret, ...rest } = action;
  return { ...rest, secret_set: secret !== undefined };
}

function presentFiring(firing: FiringRecord): Record<string, unknown> {
  return {
    id: firing.key,
    state: firing.state,
    issue_id: firing.issue_id,
    fired_at: iso(firing.fired_at),
    deliveries: firing.deliveries.map((d) => ({
      id: d.id,
      type: d.type,
      status: d.status,
      attempts: d.attempts,
      last_error: d.last_error,
      next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
      delivered_at: iso(d.delivered_at),
    })),
  };
}

const RULE_SCHEMA = {
  type: 'object',
  required: ['name', 'type', 'actions'],
  properties: {
    project_id: { type: 'string', description: 'Required with an organization key' },
    name: { type: 'string' },
    type: { type: 'string', enum: [...ALERT_TYPES] },
    conditions: { type: 'object', description: 'Per type: see processors/alerting/README.md' },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['webhook', 'slack', 'email', 'log'] },
          url: { type: 'string' },
          secret: { type: 'string' },
          to: { type: 'array', items: { type: 'string', format: 'email' }, maxItems: MAX_EMAIL_RECIPIENTS, description: 'email: the recipients' },
        },
      },
    },
    environment: { type: 'string', nullable: true },
    enabled: { type: 'boolean', default: true },
    frequency: { type: 'string', default: '30m', description: 'Least time between two notifications, e.g. 30m' },
  },
};

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.validation('the body must be a JSON object', [{ path: '', message: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}

function valid(body: Record<string, unknown>): AlertRuleInput {
  const result = validateRule(body);
  if ('errors' in result)
    throw errors.validation(`the rule is invalid: ${result.errors.map((e) => `${e.path || 'body'} ${e.message}`).join('; ')}`, result.errors);
  return result.rule;
}

/** A refused destination is a 400 naming the field; a project out of room for rules a 409. */
async function saving<T>(save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    if (error instanceof DestinationsRefusedError) throw errors.validation(error.message, error.details);
    if (error instanceof RuleLimitError) throw new ApiError(409, 'conflict', error.message, [{ path: 'project_id', message: error.message }]);
    throw error;
  }
}

export function alertRoutes({ catalog, alerts }: ApiContext): RouteDefinition[] {
  /** The rule, if it is in the key's dataset and a project the key reaches; else 404. */
  const findRule = (principal: Principal, id: string): AlertRule => {
    const rule = alerts.rules.get(id);
    const reaches =
      rule && rule.dataset === principal.dataset && rule.org_id === principal.orgId && (!principal.projectId || principal.projectId === rule.project_id);
    if (!rule || !reaches) throw errors.notFound(`no alert rule ${id}`);
    return rule;
  };
  const ruleResponses = { 200: 'The rule', 401: 'unauthorized', 404: 'not_found' };

  return [
    {
      method: 'POST',
      path: '/v1/alerts',
      summary: 'Create an alert rule',
      tag: 'alerts',
      auth: true,
      requestBody: { contentType: 'application/json', schema: RULE_SCHEMA },
      responses: {
        201: 'The rule, with id and created_at',
        400: 'invalid_json or validation_failed (incl. a destination that is not public)',
        401: 'unauthorized',
        403: 'forbidden',
        404: 'not_found',
        409: 'conflict: the project has the most rules allowed',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const body = asObject(await readJson(ctx.event, BODY_LIMIT));
        if (body.project_id === undefined && principal.projectId) body.project_id = principal.projectId;
        const input = valid(body);
        const project = await resolveProject(catalog, principal, input.project_id);
        const rule = await saving(() => alerts.createRule(input, { dataset: principal.dataset, orgId: project.org_id }));
        return json(ctx, 201, presentRule(rule));
      },
    },
    {
      method: 'GET',
      path: '/v1/alerts',
      summary: 'List alert rules, newest first',
      tag: 'alerts',
      auth: true,
      query: [
        LIST_PROJECT_DOC,
        { name: 'type', description: ALERT_TYPES.join(', '), schema: { type: 'string', enum: [...ALERT_TYPES] } },
        { name: 'enabled', description: 'true or false', schema: { type: 'boolean' } },
        ...LIST_QUERY_DOCS,
      ],
      responses: { 200: '{data: [rule], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const limit = parseLimit(ctx.query);
        const type = parseEnum(ctx.query, 'type', ALERT_TYPES);
        const enabled = parseEnum(ctx.query, 'enabled', ['true', 'false'] as const);
        const project = await listProject(catalog, principal, ctx.query);
        try {
          const page = alerts.rules.list(
            { dataset: principal.dataset, projectId: project.id, type, enabled: enabled === undefined ? undefined : enabled === 'true' },
            limit,
            optional(ctx.query, 'cursor'),
          );
          return json(ctx, 200, { data: page.rules.map(presentRule), has_more: page.nextCursor !== null, next_cursor: page.nextCursor });
        } catch (error) {
          if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
          throw error;
        }
      },
    },
    {
      method: 'GET',
      path: '/v1/alerts/:id',
      summary: 'Get an alert rule with its state and recent firings (and their deliveries)',
      tag: 'alerts',
      auth: true,
      responses: ruleResponses,
      handler: async (ctx: RequestContext) => {
        const rule = findRule(principalOf(ctx), ctx.params.id);
        const firings = await alerts.outbox.recent(rule.id);
        return json(ctx, 200, { ...presentRule(rule), firings: firings.map(presentFiring) });
      },
    },
    {
      method: 'PATCH',
      path: '/v1/alerts/:id',
      summary: 'Change any field of an alert rule (enabled: false mutes it); actions, when given, replace the list',
      tag: 'alerts',
      auth: true,
      requestBody: { contentType: 'application/json', schema: { ...RULE_SCHEMA, required: [] } },
      responses: {
        ...ruleResponses,
        400: 'invalid_json or validation_failed (incl. a destination that is not public)',
        403: 'forbidden',
        409: 'conflict: the project it moves to has the most rules allowed',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const body = asObject(await readJson(ctx.event, BODY_LIMIT));
        const rule = findRule(principal, ctx.params.id);
        const { project_id, name, type, conditions, actions, environment, enabled, frequency } = rule;
        // A change of type needs that type's conditions: the old ones are not carried over.
        const base = {
          project_id,
          name,
          type,
          conditions: body.type !== undefined && body.type !== type ? {} : conditions,
          actions,
          environment,
          enabled,
          frequency,
        };
        const input = valid({ ...base, ...body });
        if (input.project_id !== rule.project_id) {
          const project = await resolveProject(catalog, principal, input.project_id);
          if (project.org_id !== rule.org_id) throw errors.notFound(`project ${input.project_id} does not exist`);
        }
        const updated = await saving(() => alerts.updateRule(rule, input, body.actions !== undefined));
        if (!updated) throw errors.notFound(`no alert rule ${ctx.params.id}`);
        return json(ctx, 200, presentRule(updated));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/alerts/:id',
      summary: 'Delete an alert rule (notifications already fired are still delivered)',
      tag: 'alerts',
      auth: true,
      responses: { 204: 'Deleted', 401: 'unauthorized', 404: 'not_found' },
      handler: async (ctx) => {
        const rule = findRule(principalOf(ctx), ctx.params.id);
        await alerts.rules.delete(rule.id);
        return new FastResponse(null, { status: 204, headers: { 'x-request-id': ctx.requestId } });
      },
    },
    {
      method: 'POST',
      path: '/v1/alerts/:id/test',
      summary: "Send a test notification through the rule's actions",
      tag: 'alerts',
      auth: true,
      responses: {
        202: '{id, deliveries}: queued; GET the rule to see the outcome',
        401: 'unauthorized',
        404: 'not_found',
        409: 'conflict: no alerting processor runs',
        429: "rate_limited: the project's test notifications per minute are spent (Retry-After)",
      },
      handler: async (ctx) => {
        const rule = findRule(principalOf(ctx), ctx.params.id);
        if (!alerts.delivering) throw new ApiError(409, 'conflict', 'no alerting processor runs in this service, so nothing would deliver the notification');
        const wait = alerts.limits.testWait(rule.dataset, rule.project_id);
        if (wait > 0)
          throw new ApiError(
            429,
            'rate_limited',
            `project ${rule.project_id} asked for too many test notifications (test_notifications_per_minute in the alerting processor's limits); retry in ${wait} s`,
            [],
            { 'retry-after': String(wait) },
          );
        const project = await catalog.project(rule.project_id);
        const queued = await alerts.test(rule, { id: rule.project_id, name: project?.name ?? rule.project_id });
        return json(ctx, 202, { id: queued.key, deliveries: queued.deliveries });
      },
    },
  ];
}
