// The CLI side: reach the running service over its admin socket, or, when none answers, open the
// database directly.
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import {
  type Catalog,
  CatalogError,
  catalogOf,
  Users,
  type ApiKey,
  type CreatedKey,
  type Project,
  type User,
  type UserListing,
} from '../../extensions/catalog/index.js';
import { AlertRules, type AlertRule } from '../../extensions/alerts/index.js';
import { databaseOf, type Database } from '../../extensions/duckdb/index.js';
import { quarantineOf, type Quarantine, type QuarantinedItem } from '../../extensions/quarantine/index.js';
import { defaultRegistry } from '../components.js';
import { defaultSettings, startExtensionHost } from '../extension-host.js';
import {
  socketPath,
  type AdminOperations,
  type CreateKeyInput,
  type CreateProjectInput,
  type CreateUserInput,
  type QuarantineQuery,
  type UserChange,
} from './operations.js';

export async function withAdmin<T>(dataDir: string, work: (ops: AdminOperations) => Promise<T>): Promise<T> {
  const path = socketPath(dataDir);
  if (existsSync(path) && (await answers(path))) return work(new SocketOperations(path));
  // The stores the commands use, with their tables migrated as a start of the service would.
  const opened = await startExtensionHost({
    registry: defaultRegistry(),
    types: ['catalog', 'issues', 'quarantine', 'alerts'],
    settings: defaultSettings(dataDir),
  });
  try {
    const { host } = opened;
    return await work(new CatalogOperations(databaseOf(host), catalogOf(host), quarantineOf(host)));
  } finally {
    await opened.close();
  }
}

class CatalogOperations implements AdminOperations {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly quarantine: Quarantine,
  ) {}
  createKey = (input: CreateKeyInput) => this.catalog.createKey(input);
  listKeys = () => this.catalog.listKeys();
  revokeKey = (id: string) => this.catalog.revokeKey(id);
  createProject = (input: CreateProjectInput) => this.catalog.createProject(input);
  listProjects = () => this.catalog.listProjects();
  setAllowedOrigins = (id: string, origins: string[] | null) => this.catalog.setAllowedOrigins(id, origins);
  listQuarantine = (query: QuarantineQuery) => this.quarantine.list(query);
  listAlerts = async () => {
    const rules = new AlertRules(this.db);
    await rules.load();
    return rules.all();
  };
  testAlert = () =>
    Promise.reject(new CatalogError('invalid', 'the service is not running: start it to send a test notification (its alerting processor delivers it)'));
  createUser = async (input: CreateUserInput) => new Users(this.db).create({ ...input, orgId: (await this.catalog.defaultOrganization()).id });
  listUsers = () => new Users(this.db).list();
  changeUser = (ref: string, change: UserChange) => new Users(this.db)[change](ref);
  setUserPassword = (ref: string, passwordHash: string) => new Users(this.db).setPassword(ref, passwordHash);
}

class SocketOperations implements AdminOperations {
  constructor(private readonly path: string) {}
  createKey = (input: CreateKeyInput) => call<CreatedKey>(this.path, 'POST', '/keys', input);
  listKeys = () => call<ApiKey[]>(this.path, 'GET', '/keys');
  revokeKey = (id: string) => call<ApiKey>(this.path, 'POST', `/keys/${encodeURIComponent(id)}/revoke`, {});
  createProject = (input: CreateProjectInput) => call<Project>(this.path, 'POST', '/projects', input);
  listProjects = () => call<Project[]>(this.path, 'GET', '/projects');
  setAllowedOrigins = (id: string, origins: string[] | null) => call<Project>(this.path, 'POST', `/projects/${encodeURIComponent(id)}/origins`, { origins });
  listQuarantine = (query: QuarantineQuery) => call<QuarantinedItem[]>(this.path, 'POST', '/quarantine/list', query);
  listAlerts = () => call<AlertRule[]>(this.path, 'GET', '/alerts');
  testAlert = (id: string) => call<{ key: string; deliveries: number }>(this.path, 'POST', `/alerts/${encodeURIComponent(id)}/test`, {});
  createUser = (input: CreateUserInput) => call<User>(this.path, 'POST', '/users', input);
  listUsers = () => call<UserListing[]>(this.path, 'GET', '/users');
  changeUser = (ref: string, change: UserChange) => call<UserListing>(this.path, 'POST', `/users/${encodeURIComponent(ref)}/${change}`, {});
  setUserPassword = (ref: string, passwordHash: string) => call<UserListing>(this.path, 'POST', `/users/${encodeURIComponent(ref)}/password`, { passwordHash });
}

function call<T>(socketPath: string, method: string, path: string, body?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as { error?: { code: string; message: string } } | T;
        if (res.statusCode === 200) return resolve(parsed as T);
        const error = (parsed as { error?: { code: string; message: string } }).error;
        const code = error?.code === 'not_found' || error?.code === 'conflict' || error?.code === 'invalid' ? error.code : 'invalid';
        reject(new CatalogError(code, error?.message ?? `admin request failed with ${res.statusCode}`));
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function answers(path: string): Promise<boolean> {
  return call(path, 'GET', '/projects').then(
    () => true,
    (error: NodeJS.ErrnoException) => !(error.code === 'ECONNREFUSED' || error.code === 'ENOENT'),
  );
}
