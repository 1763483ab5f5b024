// The routes sentry-cli (and the Sentry bundler plugins, which run it) calls to upload source maps,
// so a build keeps its Sentry tooling: SENTRY_URL = Faultline's URL, SENTRY_AUTH_TOKEN = a
// Faultline API key, SENTRY_ORG = the key's organization id, SENTRY_PROJECT = the project id.
//
//   GET  /api/0/organizations/{org}/chunk-upload/            the chunk-upload options
//   POST /api/0/organizations/{org}/chunk-upload/            chunks (multipart `file` / `file_gzip`, named by SHA-1)
//   POST /api/0/organizations/{org}/artifactbundle/assemble/ {checksum, chunks, projects, version?, dist?}
//   POST /api/0/organizations/{org}/releases/                `releases new` (also under /projects/{org}/{project}/)
//   PUT  /api/0/organizations/{org}/releases/{version}/      `releases finalize`, `set-commits`
//   POST /api/0/organizations/{org}/releases/{version}/deploys/   `deploys new`
//   GET  /api/0/organizations/{org}/repos/                   `set-commits --auto` (none: commits are not kept)
//
// An assembled bundle is stored as POST /v1/sourcemaps stores an upload: one bundle per project,
// under the request's release (`version`) and dist — or, for a debug-id-only upload without a
// release, under the release `~debug-ids` (debug ids are looked up across every release).
// Releases and deploys are acknowledged, not stored: a Faultline release is the string events
// and uploads carry.
import { copyFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import busboy from 'busboy';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { Principal } from '../../src/auth/authenticator.js';
import { readJson } from '../../src/http/body.js';
import { ApiError, errors } from '../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import type { Project } from '../../extensions/catalog/catalog.js';
import type { ApiContext } from './context.js';
import { namedProject } from '../../src/http/params.js';
import { CHUNK_SIZE, CHUNKS_PER_REQUEST, ChunkStore, MAX_CHUNKS, readArtifactBundle, SHA1, type ReadBundle } from './sentry-bundles.js';
import { bodyChunks, MAX_DIST_LENGTH, MAX_RELEASE_LENGTH, removeStaged } from './sourcemap-upload.js';
import { checkUpload } from './sourcemaps.js';

/** The release an upload without one (debug ids only) is stored under. */
export const DEBUG_ID_RELEASE = '~debug-ids';
const JSON_LIMIT = 1024 * 1024;
const TAG = 'sentry-cli';

const assembleSchema = z
  .object({
    checksum: z.string().regex(SHA1, 'must be a lower-case SHA-1'),
    chunks: z.array(z.string().regex(SHA1, 'must be a lower-case SHA-1')).max(MAX_CHUNKS),
    projects: z.array(z.string().min(1)).min(1, 'must name a project').max(100),
    version: z.string().min(1).max(MAX_RELEASE_LENGTH).optional(),
    dist: z.string().min(1).max(MAX_DIST_LENGTH).optional(),
  })
  .loose();

const releaseSchema = z
  .object({
    version: z.string().min(1).max(MAX_RELEASE_LENGTH),
    projects: z.array(z.string().min(1)).max(100).optional(),
    dateStarted: z.string().optional(),
    dateReleased: z.string().optional(),
  })
  .loose();

const releaseUpdateSchema = z.object({ projects: z.array(z.string().min(1)).max(100).optional(), dateReleased: z.string().optional() }).loose();

const deploySchema = z.object({ environment: z.string().min(1).max(256), name: z.string().max(256).nullish(), url: z.string().max(2048).nullish() }).loose();

type AssembleAnswer = { state: 'ok' | 'not_found' | 'error'; missingChunks: string[]; detail: string | null };

export function sentryCliRoutes({ catalog, artifacts, limits }: ApiContext): RouteDefinition[] {
  const chunks = new ChunkStore(() => dirname(artifacts.stagingPath()));
  /** Assembles answered `ok`, so a poll after the chunks are gone answers the same. */
  const assembled = new LRUCache<string, AssembleAnswer>({ max: 1000 });

  /** The org in the path must be the key's organization (a 404 otherwise, as for a project it does not reach). */
  const organization = (ctx: RequestContext): Principal => {
    const principal = principalOf(ctx);
    if (ctx.params.org !== principal.orgId) throw errors.notFound(`no organization ${ctx.params.org} for this key (its organization is ${principal.orgId})`);
    return principal;
  };

  const projectsOf = async (principal: Principal, ids: readonly string[] | undefined): Promise<Project[]> => {
    const wanted = ids && ids.length > 0 ? ids : [undefined];
    return Promise.all(wanted.map((id) => namedProject(catalog, principal, id)));
  };

  const parsed = <T>(schema: z.ZodType<T>, body: unknown): T => {
    const result = schema.safeParse(body);
    if (!result.success)
      throw errors.validation(
        'the request is invalid',
        result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    return result.data;
  };

  const releaseInfo = (version: string, projects: Project[], released: string | null) => ({
    version,
    url: null,
    dateCreated: new Date().toISOString(),
    dateReleased: released,
    lastEvent: null,
    newGroups: 0,
    projects: projects.map((p) => ({ slug: p.id, name: p.name })),
  });

  const createRelease = async (ctx: RequestContext, projectId?: string) => {
    const principal = organization(ctx);
    const body = parsed(releaseSchema, await readJson(ctx.event, JSON_LIMIT));
    const projects = await projectsOf(principal, projectId ? [projectId] : body.projects);
    return json(ctx, 201, releaseInfo(body.version, projects, body.dateReleased ?? null));
  };

  const store = async (principal: Principal, request: z.infer<typeof assembleSchema>, projects: Project[], zip: Buffer): Promise<AssembleAnswer> => {
    let bundle: ReadBundle;
    try {
      bundle = await readArtifactBundle(zip, limits.sourcemap_upload_bytes, () => artifacts.stagingPath());
    } catch (error) {
      return { state: 'error', missingChunks: [], detail: (error as Error).message };
    }
    try {
      if (bundle.files.length === 0)
        return { state: 'error', missingChunks: [], detail: `the bundle holds no source map or minified source (skipped: ${bundle.skipped.join(', ')})` };
      const { files, problems } = await checkUpload({ fields: {}, files: bundle.files, problems: [] });
      if (problems.length > 0)
        return {
          state: 'error',
          missingChunks: [],
          detail: problems.map((p) => `${bundle.files[Number(/\d+/.exec(p.path)?.[0])]?.name ?? p.path}: ${p.message}`).join('; '),
        };
      const byName = new Map(bundle.files.map((file) => [file.name, file]));
      for (const file of files) {
        const sent = byName.get(file.name);
        file.debug_id ??= sent?.debugIdHeader?.toLowerCase() ?? null;
        if (file.type === 'minified_source') file.source_mapping_url ??= sent?.sourcemapHeader ?? null;
      }
      const release = request.version ?? bundle.release ?? DEBUG_ID_RELEASE;
      const dist = request.dist ?? bundle.dist ?? null;
      // One bundle per project: the staged files move into place with the first, so the others
      // get copies staged anew (identical contents are stored once either way).
      for (const [i, project] of projects.entries()) {
        const staged = i === 0 ? files : await restage(files);
        await artifacts.create({ dataset: principal.dataset, projectId: project.id, release, dist, files: staged });
      }
      return { state: 'ok', missingChunks: [], detail: null };
    } finally {
      await removeStaged(bundle.files);
    }
  };

  /** Copies of staged files (for a second project's bundle), from the store's copy of each. */
  const restage = async (files: Awaited<ReturnType<typeof checkUpload>>['files']) => {
    return Promise.all(
      files.map(async (file) => {
        const path = artifacts.stagingPath();
        await copyFile(artifacts.pathOf(file.sha256), path);
        return { ...file, path };
      }),
    );
  };

  return [
    {
      method: 'GET',
      path: '/api/0/organizations/:org/chunk-upload/',
      summary: 'sentry-cli: the chunk-upload options (chunk size, compression, what may be uploaded)',
      tag: TAG,
      auth: true,
      responses: {
        200: '{url, chunkSize, chunksPerRequest, maxFileSize, maxRequestSize, concurrency, hashAlgorithm, compression, accept}',
        401: 'unauthorized',
        404: 'not_found (organization)',
      },
      handler: (ctx) => {
        organization(ctx);
        return json(ctx, 200, {
          // Relative: sentry-cli puts it under its own SENTRY_URL (so a proxy in between is no matter).
          url: `/api/0/organizations/${encodeURIComponent(ctx.params.org)}/chunk-upload/`,
          chunkSize: CHUNK_SIZE,
          chunksPerRequest: CHUNKS_PER_REQUEST,
          maxFileSize: limits.sourcemap_upload_bytes,
          maxRequestSize: Math.min(limits.sourcemap_upload_bytes, CHUNKS_PER_REQUEST * CHUNK_SIZE),
          concurrency: 2,
          hashAlgorithm: 'sha1',
          compression: ['gzip'],
          accept: ['artifact_bundles'],
        });
      },
    },
    {
      method: 'POST',
      path: '/api/0/organizations/:org/chunk-upload/',
      summary: 'sentry-cli: upload chunks (multipart; each part `file` or `file_gzip`, its filename the chunk’s SHA-1)',
      tag: TAG,
      auth: true,
      responses: {
        200: 'Stored',
        400: 'bad_request (not multipart, a part not named by its SHA-1, or bytes that do not hash to it), validation_failed',
        401: 'unauthorized',
        404: 'not_found (organization)',
        413: 'payload_too_large',
      },
      handler: async (ctx) => {
        organization(ctx);
        const stored = await readChunks(ctx, chunks, {
          limit: limits.sourcemap_upload_bytes,
          stallMs: limits.body_timeout_ms,
          stagingPath: () => artifacts.stagingPath(),
        });
        return json(ctx, 200, { stored });
      },
    },
    {
      method: 'POST',
      path: '/api/0/organizations/:org/artifactbundle/assemble/',
      summary: 'sentry-cli: put uploaded chunks together into an artifact bundle and store its files',
      tag: TAG,
      auth: true,
      responses: {
        200: '{state: ok | not_found (missingChunks lists what to upload) | error (detail says why), missingChunks, detail}',
        400: 'invalid_json, validation_failed',
        401: 'unauthorized',
        403: 'forbidden',
        404: 'not_found (organization, project)',
      },
      handler: async (ctx) => {
        const principal = organization(ctx);
        const request = parsed(assembleSchema, await readJson(ctx.event, JSON_LIMIT));
        const projects = await projectsOf(principal, request.projects);
        const key = JSON.stringify([principal.dataset, request.checksum, projects.map((p) => p.id), request.version ?? null, request.dist ?? null]);
        const known = assembled.get(key);
        if (known) return json(ctx, 200, known);
        const missing = await chunks.missing(request.chunks);
        if (missing.length > 0) return json(ctx, 200, { state: 'not_found', missingChunks: missing, detail: null });
        const zip = await chunks.assemble(request.chunks, request.checksum, limits.sourcemap_upload_bytes);
        const answer: AssembleAnswer =
          typeof zip === 'string' ? { state: 'error', missingChunks: [], detail: zip } : await store(principal, request, projects, zip);
        await chunks.remove(request.chunks);
        if (answer.state === 'ok') assembled.set(key, answer);
        return json(ctx, 200, answer);
      },
    },
    {
      method: 'POST',
      path: '/api/0/organizations/:org/releases/',
      summary: 'sentry-cli `releases new`: acknowledged (a release is the string events and uploads carry)',
      tag: TAG,
      auth: true,
      responses: { 201: '{version, dateCreated, dateReleased, projects: [{slug, name}], …}', 400: 'validation_failed', 401: 'unauthorized', 404: 'not_found' },
      handler: (ctx) => createRelease(ctx),
    },
    {
      method: 'POST',
      path: '/api/0/projects/:org/:project/releases/',
      summary: 'sentry-cli `releases new` for one project: acknowledged',
      tag: TAG,
      auth: true,
      responses: { 201: '{version, dateCreated, dateReleased, projects: [{slug, name}], …}', 400: 'validation_failed', 401: 'unauthorized', 404: 'not_found' },
      handler: (ctx) => createRelease(ctx, ctx.params.project),
    },
    {
      method: 'PUT',
      path: '/api/0/organizations/:org/releases/:version/',
      summary: 'sentry-cli `releases finalize` / `set-commits`: acknowledged',
      tag: TAG,
      auth: true,
      responses: { 200: '{version, dateCreated, dateReleased, projects, …}', 400: 'validation_failed', 401: 'unauthorized', 404: 'not_found' },
      handler: async (ctx) => {
        const principal = organization(ctx);
        const body = parsed(releaseUpdateSchema, await readJson(ctx.event, JSON_LIMIT));
        const projects = await projectsOf(principal, body.projects);
        return json(ctx, 200, releaseInfo(ctx.params.version, projects, body.dateReleased ?? null));
      },
    },
    {
      method: 'POST',
      path: '/api/0/organizations/:org/releases/:version/deploys/',
      summary: 'sentry-cli `deploys new`: acknowledged',
      tag: TAG,
      auth: true,
      responses: { 201: '{id, environment, name, url, dateStarted, dateFinished}', 400: 'validation_failed', 401: 'unauthorized', 404: 'not_found' },
      handler: async (ctx) => {
        organization(ctx);
        const body = parsed(deploySchema, await readJson(ctx.event, JSON_LIMIT));
        const now = new Date().toISOString();
        return json(ctx, 201, { id: '0', environment: body.environment, name: body.name ?? null, url: body.url ?? null, dateStarted: now, dateFinished: now });
      },
    },
    {
      method: 'GET',
      path: '/api/0/organizations/:org/repos/',
      summary: 'sentry-cli `set-commits --auto`: no repositories (Faultline keeps no commits)',
      tag: TAG,
      auth: true,
      responses: { 200: '[]', 401: 'unauthorized', 404: 'not_found' },
      handler: (ctx) => {
        organization(ctx);
        return json(ctx, 200, []);
      },
    },
  ];
}

/** Reads a chunk-upload body: every `file`/`file_gzip` part stored under its SHA-1 filename. */
async function readChunks(ctx: RequestContext, store: ChunkStore, options: { limit: number; stallMs: number; stagingPath: () => string }): Promise<number> {
  const type = ctx.event.req.headers.get('content-type') ?? '';
  if (type.split(';')[0].trim().toLowerCase() !== 'multipart/form-data') throw errors.unsupportedMediaType('send the chunks as multipart/form-data');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': type }, limits: { files: CHUNKS_PER_REQUEST * 4, fields: 10, fileSize: CHUNK_SIZE + 1024 * 1024 } });
  } catch (error) {
    throw new ApiError(400, 'bad_request', `the multipart body cannot be read: ${(error as Error).message}`);
  }
  const writes: Array<Promise<void>> = [];
  let stored = 0;
  const fail = (message: string) => parser.destroy(new ApiError(400, 'bad_request', message));
  parser.on('file', (field, stream, info) => {
    const name = info.filename ?? '';
    if ((field !== 'file' && field !== 'file_gzip') || !SHA1.test(name)) {
      stream.resume();
      fail(`a chunk part must be named file or file_gzip and have its SHA-1 (40 lower-case hex digits) as filename, not ${field} / ${name.slice(0, 64)}`);
      return;
    }
    const parts: Buffer[] = [];
    stream.on('data', (part: Buffer) => parts.push(part));
    stream.on('limit', () => fail(`chunk ${name} is larger than ${CHUNK_SIZE} bytes`));
    const write = new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      stream.on('end', () => {
        let bytes = Buffer.concat(parts);
        try {
          if (field === 'file_gzip') bytes = gunzipSync(bytes, { maxOutputLength: CHUNK_SIZE });
        } catch {
          reject(new ApiError(400, 'bad_request', `chunk ${name} is not valid gzip data of at most ${CHUNK_SIZE} bytes`));
          return;
        }
        store.put(name, bytes).then((ok) => {
          if (!ok) reject(new ApiError(400, 'bad_request', `chunk ${name}: its bytes do not have that SHA-1`));
          else {
            stored++;
            resolve();
          }
        }, reject);
      });
    });
    write.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile
    writes.push(write);
  });
  try {
    await pipeline(Readable.from(bodyChunks(ctx.event, options, 'bad_request')), parser);
    await Promise.all(writes);
  } catch (error) {
    await Promise.allSettled(writes);
    if (error instanceof ApiError) throw error;
    if (error instanceof Error && (error as NodeJS.ErrnoException).code === undefined)
      throw new ApiError(400, 'bad_request', `the multipart body is malformed: ${error.message}`);
    throw error;
  }
  return stored;
}
