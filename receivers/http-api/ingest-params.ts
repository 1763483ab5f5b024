// The project an ingest request names (organization keys may name one; project keys need not).
import type { RequestContext } from '../../src/http/host.js';
import { optional } from '../../src/http/params.js';
import { errors } from '../../src/http/errors.js';

/** The project an ingest request names: `?project_id=`, else the x-faultline-project header. */
export function ingestProject(ctx: RequestContext): string | undefined {
  return optional(ctx.query, 'project_id') ?? ctx.event.req.headers.get('x-faultline-project') ?? undefined;
}

export const INGEST_PROJECT_DOC = {
  name: 'project_id',
  description: 'Target project (organization keys; or the x-faultline-project header)',
  schema: { type: 'string' },
};

/**
 * The project of a request whose body may name one (`{"project_id": …}` at the top level): the
 * request's own (query parameter or header) wins, and a body naming another is 400, so an item is
 * never stored elsewhere than its sender said. The body's field is taken out (it is not item data).
 */
export function projectOfBody(requested: string | undefined, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, 'project_id')) return requested;
  const record = body as Record<string, unknown>;
  const named = record.project_id;
  delete record.project_id;
  if (typeof named !== 'string' || named === '') throw errors.invalidParameter('project_id', 'must be a non-empty string');
  if (requested !== undefined && requested !== named)
    throw errors.invalidParameter('project_id', `the body names project ${named}, the request (query parameter or x-faultline-project header) ${requested}`);
  return named;
}

export const INGEST_BODY_PROJECT_DOC = {
  ...INGEST_PROJECT_DOC,
  description: 'Target project (organization keys; or the x-faultline-project header, or project_id in the body; naming two different ones is 400)',
};
