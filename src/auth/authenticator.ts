// Bearer-key authentication: a secret resolves to the key's organization, optional project and
// dataset. Results (including misses) are cached and dropped whenever keys change.
import type { ApiKey, Catalog } from '../storage/catalog.js';
import type { Dataset } from '../engine/item.js';

export interface Principal {
  keyId: string;
  orgId: string;
  /** Set for project keys: the one project the key reaches. */
  projectId: string | null;
  dataset: Dataset;
}

const MAX_CACHED = 10_000;

export class Authenticator {
  private cache = new Map<string, Principal | null>();

  constructor(private readonly catalog: Catalog) {
    catalog.onKeysChanged(() => this.cache.clear());
  }

  /** The principal for an `Authorization` header value, or undefined when it is missing or not a live key. */
  async authenticate(header: string | null | undefined): Promise<Principal | undefined> {
    const secret = parseBearer(header);
    if (!secret) return undefined;
    const cached = this.cache.get(secret);
    if (cached !== undefined) return cached ?? undefined;
    const key = await this.catalog.keyForSecret(secret);
    const principal = key ? toPrincipal(key) : null;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(secret, principal);
    return principal ?? undefined;
  }
}

export function parseBearer(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function toPrincipal(key: ApiKey): Principal {
  return { keyId: key.id, orgId: key.org_id, projectId: key.project_id, dataset: key.dataset };
}
