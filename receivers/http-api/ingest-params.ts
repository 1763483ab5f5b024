// The project an ingest request names (organization keys may name one; project keys need not).
import type { RequestContext } from '../../src/http/host.js';
import { optional } from '../../src/api/params.js';

/** The project an ingest request names: `?project_id=`, else the x-faultline-project header. */
export function ingestProject(ctx: RequestContext): string | undefined {
  return optional(ctx.query, 'project_id') ?? ctx.event.req.headers.get('x-faultline-project') ?? undefined;
}

export const INGEST_PROJECT_DOC = {
  name: 'project_id',
  description: 'Target project (organization keys; or the x-faultline-project header)',
  schema: { type: 'string' },
};
