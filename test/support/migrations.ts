// Every extension's migration list by extension type, and the ledger rows they leave.
import { ALERTS_MIGRATIONS } from '../../extensions/alerts/index.js';
import { ARTIFACTS_MIGRATIONS } from '../../extensions/artifacts/index.js';
import { CATALOG_MIGRATIONS } from '../../extensions/catalog/index.js';
import type { Migration } from '../../extensions/duckdb/index.js';
import { DATABASE_MIGRATIONS } from '../../extensions/duckdb/migrations.js';
import { extensionOwner } from '../../extensions/duckdb/index.js';
import { ISSUES_MIGRATIONS } from '../../extensions/issues/index.js';
import { QUARANTINE_MIGRATIONS } from '../../extensions/quarantine/index.js';

export const EXTENSION_MIGRATIONS: Record<string, readonly Migration[]> = {
  alerts: ALERTS_MIGRATIONS,
  artifacts: ARTIFACTS_MIGRATIONS,
  catalog: CATALOG_MIGRATIONS,
  duckdb: DATABASE_MIGRATIONS,
  issues: ISSUES_MIGRATIONS,
  quarantine: QUARANTINE_MIGRATIONS,
};

/** `owner:version` of every extension migration, ordered by owner then version (as `ORDER BY owner, version`). */
export function extensionLedger(): string[] {
  return Object.entries(EXTENSION_MIGRATIONS)
    .map(([type, list]) => [extensionOwner(type), list] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([owner, list]) => [...list].sort((a, b) => a.version - b.version).map((m) => `${owner}:${m.version}`));
}
