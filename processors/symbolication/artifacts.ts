// Finding files: the ArtifactLookup contract (src/records/artifact.ts) behind a short-lived memo,
// so the frames of one bundle in a burst of events cost one catalog query, not one per frame.
// Answers (including "nothing found") are reused for `lookup_ttl_ms`, or until the store says an
// upload or deletion happened in this process; concurrent identical lookups share one query; a
// lookup that fails is not remembered.
import { LRUCache } from 'lru-cache';
import type { Tenant } from '../../src/engine/item.js';
import type { ArtifactFile, ArtifactLookup, ArtifactScope, ArtifactType } from '../../src/records/artifact.js';
import type { ErrorEvent } from '../../src/records/event.js';

const MAX_REMEMBERED_LOOKUPS = 10_000;

export function scopeOf(tenant: Tenant, event: ErrorEvent): ArtifactScope {
  return { dataset: tenant.dataset, projectId: tenant.projectId, release: event.release, dist: event.dist ?? null };
}

export class ArtifactFinder {
  private readonly memo: LRUCache<string, Promise<ArtifactFile[]>> | undefined;
  /** Lookups sent to the ArtifactLookup (not answered from the memo). */
  queries = 0;
  private seenVersion: number | undefined;

  constructor(
    readonly lookup: ArtifactLookup,
    ttlMs: number,
  ) {
    this.memo = ttlMs > 0 ? new LRUCache({ max: MAX_REMEMBERED_LOOKUPS, ttl: ttlMs }) : undefined;
  }

  byDebugId(scope: ArtifactScope, debugId: string, types: readonly ArtifactType[]): Promise<ArtifactFile[]> {
    return this.remembered(`${scopeKey(scope)}\0d\0${debugId}\0${types.join(',')}`, () => this.lookup.byDebugId(scope, debugId, types));
  }

  byNames(scope: ArtifactScope, names: readonly string[], types: readonly ArtifactType[]): Promise<ArtifactFile[]> {
    if (names.length === 0) return Promise.resolve([]);
    return this.remembered(`${scopeKey(scope)}\0n\0${names.join('\n')}\0${types.join(',')}`, () => this.lookup.byNames(scope, names, types));
  }

  read(file: ArtifactFile): Promise<Buffer> {
    return this.lookup.read(file);
  }

  /** Whether the scope (project, release, dist) has any upload; false when the lookup cannot tell. */
  async scopeHasFiles(scope: ArtifactScope): Promise<boolean> {
    return (await this.lookup.scopeHasFiles?.(scope)) ?? false;
  }

  private remembered(key: string, query: () => Promise<ArtifactFile[]>): Promise<ArtifactFile[]> {
    // An upload or deletion in this process makes every remembered answer stale at once.
    const version = this.lookup.version?.();
    if (version !== this.seenVersion) {
      this.memo?.clear();
      this.seenVersion = version;
    }
    const known = this.memo?.get(key);
    if (known !== undefined) return known;
    this.queries++;
    const answer = query();
    if (this.memo !== undefined) {
      this.memo.set(key, answer);
      answer.catch(() => this.memo?.delete(key));
    }
    return answer;
  }
}

function scopeKey(scope: ArtifactScope): string {
  return `${scope.dataset}\0${scope.projectId}\0${scope.release}\0${scope.dist ?? ''}`;
}

// ---------------------------------------------------------------------------------------------
// Debug ids
// ---------------------------------------------------------------------------------------------

const HEX = /^[0-9a-f]+$/;

/**
 * A JavaScript or ProGuard debug id as the store keeps them: a lower-case UUID with dashes.
 * Accepts upper case and the 32-digit form without dashes; anything else is returned lower-cased.
 */
export function normalizeUuid(id: string): string {
  const lower = id.trim().toLowerCase();
  const compact = lower.replace(/-/g, '');
  if (compact.length !== 32 || !HEX.test(compact)) return lower;
  return `${compact.slice(0, 8)}-${compact.slice(8, 12)}-${compact.slice(12, 16)}-${compact.slice(16, 20)}-${compact.slice(20)}`;
}

/**
 * A native image's debug id in the form of a Breakpad MODULE record (what the store keys .sym
 * files by): 32 hex digits of the GUID then the age in hex, lower case. Sentry's form
 * `6edc6acd-b282-1258-43fd-59da9c81bd83-0` (or `…bd83` without an age, meaning age 0) becomes
 * `6edc6acdb282125843fd59da9c81bd830`; a Breakpad id is returned lower-cased.
 */
export function breakpadId(debugId: string): string {
  const lower = debugId.trim().toLowerCase();
  const parts = lower.split('-');
  if (parts.length >= 5) {
    const guid = parts.slice(0, 5).join('');
    const age = parts.length > 5 ? parts.slice(5).join('') : '0';
    if (guid.length === 32 && HEX.test(guid) && HEX.test(age)) return `${guid}${age.replace(/^0+(?=.)/, '')}`;
  }
  if (HEX.test(lower) && lower.length === 32) return `${lower}0`;
  return lower;
}
