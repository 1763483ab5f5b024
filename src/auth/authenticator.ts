// Bearer-key authentication: a secret resolves to the key's organization, optional project and
// dataset. Results (including misses) are cached and dropped whenever keys change. A lookup that
// was under way while keys changed answers its caller but is not cached: it may have read the
// catalog before a revocation, and caching it would bring the revoked key back.
import type { Dataset } from '../engine/item.js';
import type { KeyDirectory, KeyGrant } from './directory.js';

export interface Principal {
  keyId: string;
  orgId: string;
  /** Set for project keys: the one project the key reaches. */
  projectId: string | null;
  dataset: Dataset;
}

const MAX_CACHED = 10_000;
/** Reads of one secret while keys keep changing, before the last one answers uncached. */
const MAX_READS = 3;

export class Authenticator {
  private cache = new Map<string, Principal | null>();
  /** Counts key changes: a lookup caches its result only if none happened while it ran. */
  private generation = 0;

  constructor(private readonly catalog: KeyDirectory) {
    catalog.onKeysChanged(() => {
      this.generation++;
      this.cache.clear();
    });
  }

  /** The principal for an `Authorization` header value, or undefined when it is missing or not a live key. */
  async authenticate(header: string | null | undefined): Promise<Principal | undefined> {
    const secret = parseBearer(header);
    if (!secret) return undefined;
    const cached = this.cache.get(secret);
    if (cached !== undefined) return cached ?? undefined;
    // Read again when keys changed meanwhile (the read may predate a revocation), a few times at most.
    let principal: Principal | null = null;
    for (let attempt = 0; attempt < MAX_READS; attempt++) {
      const generation = this.generation;
      const key = await this.catalog.keyForSecret(secret);
      principal = key ? toPrincipal(key) : null;
      if (generation !== this.generation) continue;
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(secret, principal);
      break;
    }
    return principal ?? undefined;
  }
}

export function parseBearer(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function toPrincipal(key: KeyGrant): Principal {
  return { keyId: key.id, orgId: key.org_id, projectId: key.project_id, dataset: key.dataset };
}
