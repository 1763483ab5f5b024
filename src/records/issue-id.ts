import { createHash } from 'node:crypto';
import type { Tenant } from '../engine/item.js';

/**
 * Issue ids are derived from (dataset, project, grouping hash), so every worker computes the same id
 * for the same error without coordination, and live and sandbox issues never share an id.
 */
export function issueIdFor(tenant: Pick<Tenant, 'dataset' | 'projectId'>, groupingHash: string): string {
  return createHash('sha256').update(`${tenant.dataset}\0${tenant.projectId}\0${groupingHash}`).digest('hex').slice(0, 16);
}
