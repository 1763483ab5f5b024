// POST /v1/sourcemaps, GET /v1/sourcemaps, GET /v1/sourcemaps/{id}, DELETE /v1/sourcemaps/{id}:
// uploaded source maps, minified sources, ProGuard mapping files and Breakpad symbol files, in
// bundles per project, release and dist (src/storage/artifacts.ts). Control-plane data, mounted
// whatever the pipelines are.
import { z } from 'zod';
import type { Principal } from '../../src/auth/authenticator.js';
import { reachableProjects } from '../../src/auth/scope.js';
import type { FieldError } from '../../src/engine/item.js';
import { errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import { FastResponse } from 'srvx';
import { checkArtifact, checkName } from '../../src/records/artifact-content.js';
import type { Bundle, StagedArtifact } from '../../extensions/artifacts/artifacts.js';
import { InvalidCursorError } from '../../src/http/cursor.js';
import type { ApiContext } from './context.js';
import { LIST_PROJECT_DOC, LIST_QUERY_DOCS, listProject, namedProject, optional, parseLimit } from '../../src/http/params.js';
import { readUpload, removeStaged, sourcemapUploadSchema, type Upload } from './sourcemap-upload.js';

const uploadJsonSchema = (() => {
  const { $schema: _schema, ...schema } = z.toJSONSchema(sourcemapUploadSchema, { io: 'input' });
  return schema as Record<string, unknown>;
})();

const multipartSchema = {
  type: 'object',
  required: ['release'],
  properties: {
    project_id: { type: 'string', description: 'Required with an organization key; a project key may omit it' },
    release: { type: 'string' },
    dist: { type: 'string' },
  },
  additionalProperties: {
    type: 'string',
    format: 'binary',
    description: 'Every file part, whatever its field name, is an artifact named by its filename; its Content-Type may give its type',
  },
};

export function sourcemapRoutes({ catalog, artifacts, limits }: ApiContext): RouteDefinition[] {
  /** The bundle, if it is in the key's dataset and a project the key reaches; else 404. */
  const findBundle = async (principal: Principal, id: string): Promise<Bundle> => {
    const bundle = await artifacts.get(id);
    const reachable = bundle && bundle.dataset === principal.dataset && (await reachableProjects(catalog, principal)).some((p) => p.id === bundle.project_id);
    if (!bundle || !reachable) throw errors.notFound(`no source-map bundle ${id}`);
    return bundle;
  };

  return [
    {
      method: 'POST',
      path: '/v1/sourcemaps',
      summary: 'Upload source maps, minified sources, ProGuard mapping files or Breakpad symbol files for a release',
      tag: 'sourcemaps',
      auth: true,
      requestBody: [
        { contentType: 'multipart/form-data', schema: multipartSchema },
        { contentType: 'application/json', schema: uploadJsonSchema },
      ],
      responses: {
        201: 'Stored (or the identical earlier upload): {id, project_id, release, dist, created_at, files: [{name, type, size, sha256, debug_id}]}',
        400: 'validation_failed (details: one entry per problem file, e.g. files[2].content; nothing of the upload stored), invalid_json, bad_request (malformed multipart), invalid_parameter (project_id)',
        401: 'unauthorized',
        403: 'forbidden',
        404: 'not_found (project)',
        408: 'request_timeout (the body stalled longer than limits.body_timeout_ms)',
        413: 'payload_too_large (limits.sourcemap_upload_bytes, on the wire or inflated)',
        415: 'unsupported_media_type (neither multipart/form-data nor JSON, or an unknown content encoding)',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const upload = await readUpload(ctx.event, {
          limit: limits.sourcemap_upload_bytes,
          stallMs: limits.body_timeout_ms,
          stagingPath: () => artifacts.stagingPath(),
        });
        try {
          const project = await namedProject(catalog, principal, upload.fields.project_id);
          const { files, problems } = await checkUpload(upload);
          if (problems.length) throw errors.validation('the upload is invalid; nothing of it was stored', problems);
          const { bundle } = await artifacts.create({
            dataset: principal.dataset,
            projectId: project.id,
            release: upload.fields.release as string,
            dist: upload.fields.dist ?? null,
            files,
          });
          return json(ctx, 201, present(bundle));
        } finally {
          await removeStaged(upload.files); // gone already when stored
        }
      },
    },
    {
      method: 'GET',
      path: '/v1/sourcemaps',
      summary: 'List source-map bundles of a project, newest first',
      tag: 'sourcemaps',
      auth: true,
      query: [
        LIST_PROJECT_DOC,
        { name: 'release', description: 'Bundles of this release only', schema: { type: 'string' } },
        { name: 'dist', description: 'Bundles of this dist only', schema: { type: 'string' } },
        ...LIST_QUERY_DOCS,
      ],
      responses: {
        200: '{data: [{id, project_id, release, dist, created_at, file_count, size}], has_more, next_cursor}',
        400: 'invalid_parameter',
        401: 'unauthorized',
        403: 'forbidden',
        404: 'not_found',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const limit = parseLimit(ctx.query);
        const project = await listProject(catalog, principal, ctx.query);
        try {
          const page = await artifacts.list(
            { dataset: principal.dataset, projectId: project.id, release: optional(ctx.query, 'release'), dist: optional(ctx.query, 'dist') },
            limit,
            optional(ctx.query, 'cursor'),
          );
          return json(ctx, 200, { data: page.data, has_more: page.nextCursor !== null, next_cursor: page.nextCursor });
        } catch (error) {
          if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
          throw error;
        }
      },
    },
    {
      method: 'GET',
      path: '/v1/sourcemaps/:id',
      summary: 'Get a source-map bundle with its files',
      tag: 'sourcemaps',
      auth: true,
      responses: { 200: '{id, project_id, release, dist, created_at, files: [{name, type, size, sha256, debug_id}]}', 401: 'unauthorized', 404: 'not_found' },
      handler: async (ctx) => json(ctx, 200, present(await findBundle(principalOf(ctx), ctx.params.id))),
    },
    {
      method: 'DELETE',
      path: '/v1/sourcemaps/:id',
      summary: 'Delete a source-map bundle (and the stored files no other bundle holds)',
      tag: 'sourcemaps',
      auth: true,
      responses: { 204: 'Deleted', 401: 'unauthorized', 404: 'not_found' },
      handler: async (ctx) => {
        const bundle = await findBundle(principalOf(ctx), ctx.params.id);
        if (!(await artifacts.delete(bundle.id))) throw errors.notFound(`no source-map bundle ${ctx.params.id}`);
        return noContent(ctx);
      },
    },
  ];
}

/** Every file checked; the files that passed, staged for the store, and every problem (the form's first). */
export async function checkUpload(upload: Upload): Promise<{ files: StagedArtifact[]; problems: FieldError[] }> {
  const problems: FieldError[] = [...upload.problems];
  const files: StagedArtifact[] = [];
  const seen = new Map<string, number>();
  for (const file of upload.files) {
    const at = `files[${file.index}]`;
    const nameProblem = checkName(file.name);
    const earlier = seen.get(file.name);
    if (nameProblem || earlier !== undefined) {
      problems.push({ path: `${at}.name`, message: nameProblem ?? `files[${earlier}] has this name already` });
      continue;
    }
    seen.set(file.name, file.index);
    const checked = await checkArtifact(file.name, file.path, file.declaredType);
    if (!checked.ok) problems.push({ path: `${at}.${checked.field}`, message: checked.message });
    else files.push({ name: file.name, size: file.size, sha256: file.sha256, path: file.path, ...checked.facts });
  }
  return { files, problems };
}

function present(bundle: Bundle) {
  return {
    id: bundle.id,
    project_id: bundle.project_id,
    release: bundle.release,
    dist: bundle.dist,
    created_at: bundle.created_at,
    files: bundle.files.map(({ name, type, size, sha256, debug_id }) => ({ name, type, size, sha256, debug_id })),
  };
}

function noContent(ctx: RequestContext): Response {
  return new FastResponse(null, { status: 204, headers: { 'x-request-id': ctx.requestId } });
}
