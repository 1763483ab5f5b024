// GET /v1/projects: the projects a key reaches, with DSN, keys and telemetry status; PATCH
// /v1/projects/{id}: a project's settings (data scrubbing).
import { z } from 'zod';
import { apiErrorMap, toFieldErrors } from '../../src/records/zod-issues.js';
import { reachableProjects } from '../../src/auth/scope.js';
import { readJson } from '../../src/http/body.js';
import { errors } from '../../src/http/errors.js';
import { dataScrubbingSchema } from '../../src/records/data-scrubbing.js';
import { json, principalOf, type RouteDefinition } from '../../src/http/host.js';
import type { ApiKey, Project } from '../../extensions/catalog/catalog.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../src/http/cursor.js';
import type { ApiContext } from './context.js';
import { LIST_QUERY_DOCS, optional, parseLimit } from '../../src/http/params.js';

const DAY_MS = 24 * 3600 * 1000;

interface SignalActivity {
  last_received_at: string | null;
  count_24h: number;
}

export function projectRoutes({ catalog, storage, appUrl, releaseHealth, clientReports }: ApiContext): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/v1/projects',
      summary: 'List the projects of the organization (a project key sees its own project)',
      tag: 'projects',
      auth: true,
      query: LIST_QUERY_DOCS,
      responses: { 200: '{data: [project], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized' },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const limit = parseLimit(ctx.query);
        const cursor = optional(ctx.query, 'cursor');
        const after = cursor === undefined ? undefined : decodeProjectCursor(cursor);
        const projects = (await reachableProjects(catalog, principal)).filter((p) => after === undefined || p.id > after);
        const page = projects.slice(0, limit);
        const ids = page.map((p) => p.id);
        const [keys, activity, health, replayActivity, reports] = await Promise.all([
          catalog.listKeys(),
          storage.events.activity(principal.dataset, ids),
          releaseHealth.forProjects(principal.dataset, ids),
          storage.replays.activity(principal.dataset, ids),
          clientReports.forProjects(principal.dataset, ids),
        ]);
        const now = Date.now();
        const none: SignalActivity = { last_received_at: null, count_24h: 0 };
        const data = page.map((project) => {
          const errorsActivity = activity.get(project.id) ?? none;
          // A sandbox key sees only sandbox keys: live DSNs and live key metadata are not its data.
          const projectKeys = keys.filter((k) => k.project_id === project.id && (principal.dataset === 'live' || k.dataset === principal.dataset));
          const replays = replayActivity.get(project.id) ?? none;
          return {
            id: project.id,
            ingest_id: project.ingest_id,
            slug: project.slug,
            name: project.name,
            platform: project.platform,
            created_at: project.created_at,
            dsn: primaryDsn(projectKeys, project, appUrl, principal.dataset),
            allowed_origins: project.allowed_origins ?? ['*'],
            data_scrubbing: project.data_scrubbing ?? {},
            keys: projectKeys.map((k) => presentKey(k, project, appUrl)),
            telemetry: {
              status: statusOf([errorsActivity, none, replays], now),
              errors: errorsActivity,
              traces: none,
              replays,
              sessions: health.get(project.id) ?? [],
              client_reports: reports.get(project.id) ?? { discarded_total: 0, discarded_events: [] },
            },
          };
        });
        const hasMore = projects.length > limit;
        const next = hasMore ? encodeCursor({ micros: 0n, id: page[page.length - 1].id }) : null;
        return json(ctx, 200, { data, has_more: hasMore, next_cursor: next });
      },
    },
    {
      method: 'PATCH',
      path: '/v1/projects/:id',
      summary: "Change a project's settings: data_scrubbing (null: back to the configuration's)",
      tag: 'projects',
      auth: true,
      requestBody: { contentType: 'application/json', schema: patchJsonSchema },
      responses: {
        200: 'The project: {id, name, allowed_origins, data_scrubbing}',
        400: 'invalid_json or validation_failed (details name the path, e.g. data_scrubbing.rules[0].pattern)',
        401: 'unauthorized',
        404: 'not_found',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const project = (await reachableProjects(catalog, principal)).find((p) => p.id === ctx.params.id);
        if (!project) throw errors.notFound(`no project ${ctx.params.id}`);
        const parsed = projectPatchSchema.safeParse(await readJson(ctx.event, 64 * 1024), { error: apiErrorMap });
        if (!parsed.success) throw errors.validation('the project settings are invalid', toFieldErrors(parsed.error.issues));
        let updated = project;
        if (parsed.data.data_scrubbing !== undefined) updated = await catalog.setDataScrubbing(project.id, parsed.data.data_scrubbing);
        return json(ctx, 200, {
          id: updated.id,
          name: updated.name,
          allowed_origins: updated.allowed_origins ?? ['*'],
          data_scrubbing: updated.data_scrubbing ?? {},
        });
      },
    },
  ];
}

const projectPatchSchema = z.object({ data_scrubbing: dataScrubbingSchema.nullable().optional() }).strict();
const patchJsonSchema = z.toJSONSchema(projectPatchSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

/** `http(s)://<public_key>@<host>/<ingest_id>`, as Sentry SDKs take it. */
export function dsnOf(publicKey: string, project: Project, appUrl: string): string {
  const url = new URL(appUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${publicKey}@${url.host}${path}/${project.ingest_id}`;
}

/** The DSN of the project's oldest active DSN key of the reader's dataset (else of any), or null. */
export function primaryDsn(keys: ApiKey[], project: Project, appUrl: string, dataset: string): string | null {
  const active = keys.filter((k) => k.kind === 'dsn' && k.revoked_at === null && k.public_key !== null);
  const key = active.find((k) => k.dataset === dataset) ?? active[0];
  return key ? dsnOf(key.public_key as string, project, appUrl) : null;
}

function presentKey(key: ApiKey, project: Project, appUrl: string) {
  return {
    id: key.id,
    type: key.kind,
    name: key.name,
    environment: key.dataset,
    prefix: key.display_prefix,
    ...(key.kind === 'dsn' && key.public_key !== null && { public_key: key.public_key, dsn: dsnOf(key.public_key, project, appUrl) }),
    created_at: key.created_at,
    revoked_at: key.revoked_at,
  };
}

/** receiving: something arrived in the last 24 hours; stale: only earlier; no_data: never. */
function statusOf(signals: SignalActivity[], now: number): 'receiving' | 'stale' | 'no_data' {
  const latest = Math.max(...signals.map((s) => (s.last_received_at ? Date.parse(s.last_received_at) : -Infinity)));
  if (latest === -Infinity) return 'no_data';
  return now - latest <= DAY_MS ? 'receiving' : 'stale';
}

function decodeProjectCursor(cursor: string): string {
  try {
    return decodeCursor(cursor).id;
  } catch (error) {
    if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
    throw error;
  }
}
