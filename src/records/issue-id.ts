import { hash } from 'node:crypto';
import type { Tenant } from '../engine/item.js';

/**
 * Issue ids are derived from (dataset, project, grouping hash), so every worker computes the same id
 * for the same error without coordination, and live and sandbox issues never share an id.
 * `hash` is createHash's one-shot form: the same digest without a Hash object per event.
 */
export function issueIdFor(tenant: Pick<Tenant, 'dataset' | 'projectId'>, groupingHash: string): string {
  return hash('sha256', `${tenant.dataset}\0${tenant.projectId}\0${groupingHash}`, 'hex').slice(0, 16);
}
