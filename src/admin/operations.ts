// What `faultline keys …`, `faultline projects …`, `faultline quarantine list` and `faultline alerts …` do. The same operations run against the
// catalog directly (service stopped) or over the service's admin socket (service running, since
// DuckDB lets only one process write the file).
import type { Dataset } from '../engine/item.js';
import type { ApiKey, CreatedKey, Project } from '../../extensions/catalog/catalog.js';
import type { QuarantinedItem } from '../../extensions/quarantine/quarantine.js';
import type { AlertRule } from '../../extensions/alerts/alert-rules.js';
import type { Role, User, UserListing } from '../../extensions/catalog/users.js';

export interface CreateKeyInput {
  dataset: Dataset;
  /** Absent: an organization key. */
  projectId?: string;
  name?: string;
  /** A project's DSN key (Sentry SDKs) instead of an API key. */
  dsn?: boolean;
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
  /** null: any origin. */
  setAllowedOrigins(projectId: string, origins: string[] | null): Promise<Project>;
  listQuarantine(options: QuarantineQuery): Promise<QuarantinedItem[]>;
  /** Every alert rule of every project and dataset, newest first. */
  listAlerts(): Promise<AlertRule[]>;
  /** Queues a test notification through the rule's actions (needs the running service's delivery loop). */
  testAlert(id: string): Promise<{ key: string; deliveries: number }>;
  /** A web app user of the default organization; the password arrives hashed (the CLI hashes it). */
  createUser(input: CreateUserInput): Promise<User>;
  /** Every web app user, disabled ones too. */
  listUsers(): Promise<UserListing[]>;
  /** Disable, enable or delete a user (by id or email); disabling and deleting end their sessions. */
  changeUser(ref: string, change: UserChange): Promise<UserListing>;
  /** A new password (hashed by the CLI); the user's sessions end. */
  setUserPassword(ref: string, passwordHash: string): Promise<UserListing>;
}

export type UserChange = 'disable' | 'enable' | 'delete';
export const USER_CHANGES: readonly UserChange[] = ['disable', 'enable', 'delete'];

export interface CreateUserInput {
  email: string;
  role: Role;
  passwordHash: string;
}

export interface QuarantineQuery {
  limit?: number;
  withDocuments?: boolean;
}

export function socketPath(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/faultline.sock`;
}
