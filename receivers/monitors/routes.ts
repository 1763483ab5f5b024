// /v1/monitors: cron and uptime monitors (create, list, read with state and uptime, change,
// delete), their check-ins and checks; and Sentry's HTTP check-in route with a DSN key. A monitor
// belongs to a project and a dataset, as the key that reaches it does.
import { readJson } from '../../src/http/body.js';
import { ApiError, errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import type { DestinationGuard } from '../../src/net/destinations.js';
import { listBody, listProject, namedProject, parseEnum, parseLimit, withCursor } from '../../src/http/params.js';
import type { Catalog } from '../../extensions/catalog/catalog.js';
import { authenticateDsn, sentryKeyFromHeader } from '../../src/auth/sentry-dsn.js';
import { takeCheckin, type MonitorBus } from './bus.js';
import { checkinRateProblem, type CheckinLimiter } from './checkin-limit.js';
import type { MonitorsConfig } from './config.js';
import { destinationProblem } from './destination.js';
import { checkinSchema, createMonitorSchema, patchMonitorSchema, type CheckinInput } from './input.js';
import type { Monitors } from './monitors.js';
import { scheduleProblem } from './schedule.js';
import type { Checkin, Monitor, UptimeCheck } from '../../src/storage/monitors.js';
import type { z } from 'zod';

const BODY_LIMIT = 128 * 1024;
const DAY = 86_400_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export interface MonitorRouteOptions {
  catalog: Catalog;
  monitors: Monitors;
  config: MonitorsConfig;
  /** Where uptime checks may go. */
  guard: DestinationGuard;
  now?: () => number;
  /** With Kafka: check-ins go onto the monitors topic, for the node that decides for the monitor. */
  bus?: MonitorBus;
  /** Bounds each monitor's check-ins a minute (monitors.checkin_rate_per_minute). */
  limiter: CheckinLimiter;
}

export function monitorRoutes({ catalog, monitors, config, guard, now = Date.now, bus, limiter }: MonitorRouteOptions): RouteDefinition[] {
  const store = monitors.store;
  const checkIn = (monitor: Monitor, input: CheckinInput) => {
    const wait = limiter.take(monitor);
    if (wait > 0) throw new ApiError(429, 'rate_limited', checkinRateProblem(monitor, config.checkin_rate_per_minute), [], { 'retry-after': String(wait) });
    return takeCheckin(monitors, bus, monitor, input, now());
  };
  const find = async (ctx: RequestContext, projectId: string | undefined): Promise<Monitor> => {
    const principal = principalOf(ctx);
    const project = await namedProject(catalog, principal, projectId);
    const monitor = store.get(principal.dataset, project.id, ctx.params.slug ?? '');
    if (!monitor) throw errors.notFound(`no monitor ${ctx.params.slug} in project ${project.id}`);
    return monitor;
  };
  const present = async (monitor: Monitor): Promise<Record<string, unknown>> => {
    const base = presentMonitor(monitor);
    if (!monitor.uptime) return base;
    const t = now();
    const [day, month] = await Promise.all([store.uptimeSince(monitor, t - DAY), store.uptimeSince(monitor, t - 30 * DAY)]);
    return { ...base, uptime_24h: day.uptime, uptime_30d: month.uptime, latency_p50_ms: day.p50, latency_p95_ms: day.p95 };
  };
  const slugParam = { 404: 'not_found (no such monitor in the project)' };

  return [
    {
      method: 'POST',
      path: '/v1/monitors',
      summary: 'Create a cron or uptime monitor',
      tag: 'monitors',
      auth: true,
      requestBody: { contentType: 'application/json', schema: { type: 'object', required: ['slug', 'type'], description: 'See docs/monitors.md' } },
      responses: { 201: 'The monitor', 400: 'invalid_json or validation_failed', 401: 'unauthorized', 403: 'forbidden', 409: 'conflict (the slug exists)' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const input = parse(createMonitorSchema, await readJson(ctx.event, BODY_LIMIT));
        const project = await namedProject(catalog, principal, input.project_id);
        if (input.type === 'cron') {
          const problem = scheduleProblem(input.schedule, input.timezone);
          if (problem)
            throw errors.validation(`the schedule is invalid: ${problem}`, [
              { path: input.timezone && problem.startsWith('timezone') ? 'timezone' : 'schedule.value', message: problem },
            ]);
        } else {
          if (input.interval_seconds < config.min_uptime_interval_seconds)
            throw errors.validation(`interval_seconds must be at least ${config.min_uptime_interval_seconds}`, [
              { path: 'interval_seconds', message: `must be at least ${config.min_uptime_interval_seconds} (monitors.min_uptime_interval_seconds)` },
            ]);
          const problem = await destinationProblem(new URL(input.url), guard);
          if (problem) throw errors.validation(problem, [{ path: 'url', message: problem }]);
        }
        if (store.get(principal.dataset, project.id, input.slug)) throw conflict(`monitor ${input.slug} exists in project ${project.id}`);
        if (store.count(principal.dataset, project.id) >= config.max_monitors_per_project)
          throw errors.validation(`project ${project.id} has ${config.max_monitors_per_project} monitors, the most it may have`, [
            { path: '', message: `at most ${config.max_monitors_per_project} monitors per project (monitors.max_monitors_per_project)` },
          ]);
        const monitor = await monitors.create({ dataset: principal.dataset, orgId: project.org_id, projectId: project.id }, input);
        return json(ctx, 201, await present(monitor));
      },
    },
    {
      method: 'GET',
      path: '/v1/monitors',
      summary: 'List monitors, newest first',
      tag: 'monitors',
      auth: true,
      query: [
        { name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } },
        { name: 'type', description: 'cron or uptime', schema: { type: 'string', enum: ['cron', 'uptime'] } },
        { name: 'status', description: 'new, ok, error, missed, timeout, up, down or paused', schema: { type: 'string' } },
        { name: 'limit', description: 'Page size, 1-1000', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
        { name: 'cursor', description: 'The next_cursor of the previous page', schema: { type: 'string' } },
      ],
      responses: { 200: '{data, has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const project = await listProject(catalog, principal, ctx.query);
        const type = parseEnum(ctx.query, 'type', ['cron', 'uptime'] as const);
        const status = parseEnum(ctx.query, 'status', ['new', 'ok', 'error', 'missed', 'timeout', 'up', 'down', 'paused'] as const);
        const limit = parseLimit(ctx.query);
        const page = await withCursor(async () =>
          store.list({ dataset: principal.dataset, projectId: project.id, type, status }, limit, ctx.query.get('cursor') ?? undefined),
        );
        return json(ctx, 200, listBody({ data: await Promise.all(page.monitors.map(present)), nextCursor: page.nextCursor }));
      },
    },
    {
      method: 'GET',
      path: '/v1/monitors/:slug',
      summary: 'A monitor with its state (uptime monitors: uptime and latency)',
      tag: 'monitors',
      auth: true,
      query: [{ name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } }],
      responses: { 200: 'The monitor', 401: 'unauthorized', ...slugParam },
      handler: async (ctx) => json(ctx, 200, await present(await find(ctx, ctx.query.get('project_id') ?? undefined))),
    },
    {
      method: 'PATCH',
      path: '/v1/monitors/:slug',
      summary: 'Change a monitor (paused: true pauses it)',
      tag: 'monitors',
      auth: true,
      query: [{ name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } }],
      requestBody: { contentType: 'application/json', schema: { type: 'object', description: 'Any field of the monitor but slug and type' } },
      responses: { 200: 'The monitor', 400: 'invalid_json or validation_failed', 401: 'unauthorized', ...slugParam },
      handler: async (ctx) => {
        const monitor = await find(ctx, ctx.query.get('project_id') ?? undefined);
        const patch = parse(patchMonitorSchema, await readJson(ctx.event, BODY_LIMIT));
        const wrongType = Object.keys(patch).find((field) => (monitor.type === 'cron' ? UPTIME_FIELDS : CRON_FIELDS).has(field));
        if (wrongType)
          throw errors.validation(`${wrongType} is not a field of a ${monitor.type} monitor`, [
            { path: wrongType, message: `not a field of a ${monitor.type} monitor` },
          ]);
        if (monitor.cron && (patch.schedule || patch.timezone)) {
          const problem = scheduleProblem(patch.schedule ?? monitor.cron.schedule, patch.timezone ?? monitor.cron.timezone);
          if (problem) throw errors.validation(`the schedule is invalid: ${problem}`, [{ path: 'schedule', message: problem }]);
        }
        if (patch.url) {
          const problem = await destinationProblem(new URL(patch.url), guard);
          if (problem) throw errors.validation(problem, [{ path: 'url', message: problem }]);
        }
        if (patch.interval_seconds !== undefined && patch.interval_seconds < config.min_uptime_interval_seconds)
          throw errors.validation(`interval_seconds must be at least ${config.min_uptime_interval_seconds}`, [
            { path: 'interval_seconds', message: 'too short' },
          ]);
        return json(ctx, 200, await present(await monitors.update(monitor, patch)));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/monitors/:slug',
      summary: 'Delete a monitor with its check-ins and checks (its issue stays)',
      tag: 'monitors',
      auth: true,
      query: [{ name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } }],
      responses: { 204: 'Deleted', 401: 'unauthorized', ...slugParam },
      handler: async (ctx) => {
        await store.delete(await find(ctx, ctx.query.get('project_id') ?? undefined), now());
        return new Response(null, { status: 204, headers: { 'x-request-id': ctx.requestId } });
      },
    },
    {
      method: 'POST',
      path: '/v1/monitors/:slug/checkins',
      summary: "A cron monitor's check-in: in_progress opens a run, ok or error ends it (the same check_in_id closes an open one)",
      tag: 'monitors',
      auth: true,
      query: [{ name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } }],
      requestBody: { contentType: 'application/json', schema: { type: 'object', required: ['status'] } },
      responses: {
        202: '{check_in_id}',
        400: 'invalid_json or validation_failed',
        401: 'unauthorized',
        ...slugParam,
        429: 'rate_limited: the monitor took its check-ins of the minute (monitors.checkin_rate_per_minute; Retry-After)',
      },
      handler: async (ctx) => {
        const input = parse(checkinSchema, await readJson(ctx.event, BODY_LIMIT));
        const monitor = await find(ctx, ctx.query.get('project_id') ?? input.project_id);
        if (monitor.type !== 'cron')
          throw errors.validation('check-ins are for cron monitors', [{ path: '', message: `${monitor.slug} is an uptime monitor` }]);
        return json(ctx, 202, { check_in_id: await checkIn(monitor, input) });
      },
    },
    {
      method: 'GET',
      path: '/v1/monitors/:slug/checkins',
      summary: "A cron monitor's check-ins (also missed and timed-out runs), newest first",
      tag: 'monitors',
      auth: true,
      query: [
        { name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } },
        { name: 'limit', description: 'Page size, 1-1000', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
        { name: 'cursor', description: 'The next_cursor of the previous page', schema: { type: 'string' } },
      ],
      responses: { 200: '{data, has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', ...slugParam },
      handler: async (ctx) => {
        const monitor = await find(ctx, ctx.query.get('project_id') ?? undefined);
        const limit = parseLimit(ctx.query);
        const cursor = ctx.query.get('cursor') ?? undefined;
        const page = await withCursor(() => store.checkins(monitor, limit, cursor));
        return json(ctx, 200, listBody({ data: page.checkins.map(presentCheckin), nextCursor: page.nextCursor }));
      },
    },
    {
      method: 'GET',
      path: '/v1/monitors/:slug/checks',
      summary: "An uptime monitor's checks, newest first",
      tag: 'monitors',
      auth: true,
      query: [
        { name: 'project_id', description: 'Required with an organization key', schema: { type: 'string' } },
        { name: 'limit', description: '1-1000', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
      ],
      responses: { 200: '{data}', 400: 'invalid_parameter', 401: 'unauthorized', ...slugParam },
      handler: async (ctx) => {
        const monitor = await find(ctx, ctx.query.get('project_id') ?? undefined);
        const checks = await store.checks(monitor, parseLimit(ctx.query));
        return json(ctx, 200, { data: checks.map(presentCheck) });
      },
    },
    ...['GET', 'POST'].map((method): RouteDefinition => ({
      method: method as 'GET' | 'POST',
      path: '/api/:ingest_id/cron/:slug/:sentry_key',
      summary: "Sentry's HTTP check-in: ?status=in_progress|ok|error, optional check_in_id, duration (seconds), environment",
      tag: 'sentry',
      auth: false,
      responses: {
        202: '{check_in_id}',
        400: 'invalid_parameter',
        401: 'unauthorized',
        403: 'forbidden',
        404: 'not_found (no such monitor)',
        429: 'rate_limited: the monitor took its check-ins of the minute (monitors.checkin_rate_per_minute; Retry-After)',
      },
      handler: async (ctx) => {
        const publicKey = ctx.params.sentry_key || sentryKeyFromHeader(ctx.event.req.headers.get('x-sentry-auth'));
        const { key, project } = await authenticateDsn(catalog, ctx.params.ingest_id ?? '', publicKey);
        const monitor = store.get(key.dataset, project.id, ctx.params.slug ?? '');
        if (!monitor || monitor.type !== 'cron') throw errors.notFound(`no cron monitor ${ctx.params.slug} in project ${project.id}`);
        return json(ctx, 202, { check_in_id: await checkIn(monitor, queryCheckin(ctx.query)) });
      },
    })),
  ];
}

const CRON_FIELDS = new Set(['schedule', 'checkin_margin_minutes', 'max_runtime_minutes', 'timezone']);
const UPTIME_FIELDS = new Set(['url', 'method', 'interval_seconds', 'timeout_ms', 'expected_status', 'headers', 'body', 'failure_threshold']);

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw errors.validation(`the body is invalid: ${details.map((d) => `${d.path || 'body'}: ${d.message}`).join('; ')}`, details);
}

function queryCheckin(query: URLSearchParams): CheckinInput {
  const duration = query.get('duration');
  return parse(checkinSchema, {
    status: query.get('status') ?? 'ok',
    ...(query.get('check_in_id') ? { check_in_id: query.get('check_in_id') } : {}),
    ...(duration !== null ? { duration_ms: Number(duration) * 1000 } : {}),
    ...(query.get('environment') ? { environment: query.get('environment') } : {}),
  });
}

function conflict(message: string): ApiError {
  return new ApiError(409, 'conflict', message, [{ path: 'slug', message }]);
}

export function presentMonitor(monitor: Monitor): Record<string, unknown> {
  return {
    slug: monitor.slug,
    project_id: monitor.project_id,
    name: monitor.name,
    type: monitor.type,
    status: monitor.paused ? 'paused' : monitor.status,
    paused: monitor.paused,
    environment: monitor.environment,
    ...(monitor.cron ?? {}),
    ...(monitor.uptime ? { ...monitor.uptime, headers: Object.keys(monitor.uptime.headers) } : {}),
    last_checkin_at: iso(monitor.last_checkin_at),
    next_expected_at: monitor.paused ? null : iso(monitor.next_expected_at),
    consecutive_failures: monitor.consecutive_failures,
    issue_id: monitor.issue_id,
    created_at: iso(monitor.created_at),
    updated_at: iso(monitor.updated_at),
  };
}

function presentCheckin(checkin: Checkin): Record<string, unknown> {
  return {
    check_in_id: checkin.id,
    status: checkin.status,
    duration_ms: checkin.duration_ms,
    environment: checkin.environment,
    expected_at: iso(checkin.expected_at),
    created_at: iso(checkin.created_at),
    updated_at: iso(checkin.updated_at),
  };
}

function presentCheck(check: UptimeCheck): Record<string, unknown> {
  return { at: iso(check.at), ok: check.ok, status_code: check.status_code, latency_ms: check.latency_ms, error: check.error };
}
