// What `faultline keys …`, `faultline projects …` and `faultline quarantine list` do. The same operations run against the
// catalog directly (service stopped) or over the service's admin socket (service running, since
// DuckDB lets only one process write the file).
import type { Dataset } from '../engine/item.js';
import type { ApiKey, CreatedKey, Project } from '../storage/catalog.js';
import type { QuarantinedItem } from '../storage/quarantine.js';

export interface CreateKeyInput {
  dataset: Dataset;
  /** Absent: an organization key. */
  projectId?: string;
  name?: string;
}

export interface CreateProjectInput {
  id: string;
  name: string;
  platform?: string;
}

export interface AdminOperations {
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  listKeys(): Promise<ApiKey[]>;
  revokeKey(id: string): Promise<ApiKey>;
  createProject(input: CreateProjectInput): Promise<Project>;
  listProjects(): Promise<Project[]>;
  listQuarantine(options: QuarantineQuery): Promise<QuarantinedItem[]>;
}

export interface QuarantineQuery {
  limit?: number;
  withDocuments?: boolean;
}

export function socketPath(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/faultline.sock`;
}
