// Which DSN key a Sentry SDK request carries: `X-Sentry-Auth: Sentry sentry_key=…, sentry_version=7, …`
// (also sent as `Authorization` by some SDKs), the `sentry_key` query parameter (browser SDKs,
// which avoid preflights), or the `dsn` of the envelope header.
import { ApiError, errors } from '../http/errors.js';
import type { DsnDirectory, KeyGrant, ProjectRef } from './directory.js';

/** The `sentry_key` of a `Sentry k=v, …` header value, if any. */
export function sentryKeyFromHeader(value: string | null): string | undefined {
  if (!value) return undefined;
  const match = /^\s*Sentry\s+(.*)$/i.exec(value);
  if (!match) return undefined;
  for (const part of match[1].split(',')) {
    const [name, ...rest] = part.split('=');
    if (name.trim() === 'sentry_key') return rest.join('=').trim() || undefined;
  }
  return undefined;
}

/** The public key of a DSN (`http(s)://<public_key>[:secret]@host/<id>`), if it parses. */
export function sentryKeyFromDsn(dsn: unknown): string | undefined {
  if (typeof dsn !== 'string') return undefined;
  try {
    return new URL(dsn).username || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The DSN key and project for a request to `/api/{ingestId}/…`: 401 for a missing or unknown key
 * (with a `WWW-Authenticate` naming Sentry's scheme), 403 for a key of another project (also when
 * the ingest id names no project: a valid key learns nothing about other tenants).
 */
export async function authenticateDsn<K extends KeyGrant, P extends ProjectRef>(
  catalog: DsnDirectory<K, P>,
  ingestId: string,
  publicKey: string | undefined,
): Promise<{ key: K; project: P }> {
  if (!publicKey)
    throw unauthorized('no DSN key: send X-Sentry-Auth: Sentry sentry_key=<public key>, the sentry_key parameter, or the dsn in the envelope header');
  const key = await catalog.dsnKey(publicKey);
  if (!key || !key.project_id) throw unauthorized('unknown or revoked DSN key');
  const project = /^\d{1,15}$/.test(ingestId) ? await catalog.projectByIngestId(Number(ingestId)) : undefined;
  if (!project || project.id !== key.project_id) throw errors.forbidden(`this DSN key is not a key of project ${ingestId}`);
  return { key, project };
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message, [], { 'www-authenticate': 'Sentry' });
}
