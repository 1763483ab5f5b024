// The artifacts extension's tables. Version numbers are global across the extensions' lists.
import type { Migration } from '../duckdb/index.js';

export const ARTIFACTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 5,
    name: 'artifact bundles and files',
    // Uploaded source maps and symbol files (src/storage/artifacts.ts): one bundle per upload, its
    // files' metadata (their bytes are stored by sha256 under service.artifacts.path). A file
    // repeats its bundle's dataset, project, release and dist, so that symbolication's two
    // lookups — by debug id, and by release, dist and name — each read one table through an index.
    sql: `
      CREATE TABLE artifact_bundles (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, release VARCHAR NOT NULL, dist VARCHAR,
        created_at TIMESTAMP NOT NULL, upload_digest VARCHAR NOT NULL
      );
      CREATE INDEX artifact_bundles_by_project ON artifact_bundles (dataset, project_id, created_at);
      CREATE INDEX artifact_bundles_by_digest ON artifact_bundles (upload_digest);
      CREATE TABLE artifact_files (
        bundle_id VARCHAR NOT NULL, name VARCHAR NOT NULL, type VARCHAR NOT NULL, size BIGINT NOT NULL, sha256 VARCHAR NOT NULL,
        debug_id VARCHAR, source_mapping_url VARCHAR,
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, release VARCHAR NOT NULL, dist VARCHAR,
        PRIMARY KEY (bundle_id, name)
      );
      CREATE INDEX artifact_files_by_debug_id ON artifact_files (dataset, project_id, debug_id);
      CREATE INDEX artifact_files_by_name ON artifact_files (dataset, project_id, release, dist, name);
      CREATE INDEX artifact_files_by_sha256 ON artifact_files (sha256);
    `,
  },
];
