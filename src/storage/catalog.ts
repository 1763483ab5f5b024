// Control-plane records: organizations, projects and API keys, in catalog tables of the service's
// DuckDB file. Projects are few and read on every request, so they are cached in memory.
import { randomBytes } from 'node:crypto';
import { datasetOf, displayPrefix, hashSecret, newSecret, randomBase62 } from '../auth/keys.js';
import type { Dataset } from '../engine/item.js';
import type { Database } from './database.js';
import { rows } from './rows.js';

export interface Organization {
  id: string;
  name: string;
  default_project_id: string | null;
  created_at: string;
}

export interface Project {
  id: string;
  org_id: string;
  slug: string;
  name: string;
  platform: string | null;
  public_key: string;
  created_at: string;
}

export interface ApiKey {
  id: string;
  org_id: string;
  /** null for organization keys. */
  project_id: string | null;
  dataset: Dataset;
  name: string | null;
  display_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedKey {
  key: ApiKey;
  /** Shown once; only its hash is stored. */
  secret: string;
}

export class CatalogError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'CatalogError';
  }
}

/**
 * A control-plane record as it travels between nodes (the faultline.catalog topic): the full
 * state of one row, so the last record of a key is all a node needs (the topic is compacted).
 */
export type CatalogChange = { kind: 'project'; project: Project } | { kind: 'key'; key: ApiKey; secret_hash: string };

export const PROJECT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export class Catalog {
  private projects?: Map<string, Project>;
  private orgs?: Organization[];
  private readonly keyListeners: Array<() => void> = [];
  private readonly changeListeners: Array<(change: CatalogChange) => void> = [];

  constructor(private readonly db: Database) {}

  /** Called whenever a key is created or revoked, so caches of credentials can be dropped. */
  onKeysChanged(listener: () => void): void {
    this.keyListeners.push(listener);
  }

  /** Called with every change this node makes to projects and keys (not with changes applied from elsewhere). */
  onChange(listener: (change: CatalogChange) => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * A project or key as another node wrote it. Idempotent: a project is created once (the first
   * one wins; projects do not change), a key is inserted once and a revocation sticks.
   */
  async apply(change: CatalogChange): Promise<void> {
    if (change.kind === 'project') {
      const p = change.project;
      await this.db.write((c) =>
        c.run('INSERT INTO projects VALUES (?, ?, ?, ?, ?, ?, ?::TIMESTAMP) ON CONFLICT (id) DO NOTHING', [
          p.id,
          p.org_id,
          p.slug,
          p.name,
          p.platform,
          p.public_key,
          p.created_at,
        ]),
      );
      this.projects = undefined;
    } else if (change.kind === 'key') {
      const k = change.key;
      await this.db.write(async (c) => {
        const existing = rows<{ revoked_at: string | null }>(await c.runAndReadAll('SELECT revoked_at FROM api_keys WHERE id = ?', [k.id]))[0];
        if (!existing)
          await c.run('INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?::TIMESTAMP, ?::TIMESTAMP) ON CONFLICT DO NOTHING', [
            k.id,
            k.org_id,
            k.project_id,
            k.dataset,
            k.name,
            k.display_prefix,
            change.secret_hash,
            k.created_at,
            k.revoked_at,
          ]);
        else if (existing.revoked_at === null && k.revoked_at !== null)
          await c.run('UPDATE api_keys SET revoked_at = ?::TIMESTAMP WHERE id = ?', [k.revoked_at, k.id]);
      });
      this.keysChanged();
    }
  }

  /** On a database with no organization: the default organization, project and a live and a test key. */
  async bootstrap(): Promise<{ organization: Organization; project: Project; live: CreatedKey; test: CreatedKey } | undefined> {
    const existing = await this.organizations();
    if (existing.length) return undefined;
    const now = new Date().toISOString();
    const organization: Organization = { id: 'default', name: 'Default organization', default_project_id: 'default', created_at: now };
    await this.db.write(async (c) => {
      await c.run('INSERT INTO organizations VALUES (?, ?, ?, ?)', [organization.id, organization.name, organization.default_project_id, now]);
    });
    this.orgs = undefined;
    const project = await this.createProject({ id: 'default', name: 'Default project', platform: 'javascript' });
    const live = await this.createKey({ dataset: 'live', name: 'default live key' });
    const test = await this.createKey({ dataset: 'test', name: 'default test key' });
    return { organization, project, live, test };
  }

  async organizations(): Promise<Organization[]> {
    if (!this.orgs) {
      const result = await this.db.reader().runAndReadAll('SELECT * FROM organizations ORDER BY created_at, id');
      this.orgs = rows<Organization>(result);
    }
    return this.orgs;
  }

  async defaultOrganization(): Promise<Organization> {
    const [organization] = await this.organizations();
    if (!organization) throw new CatalogError('not_found', 'no organization exists yet; start the service once to create one');
    return organization;
  }

  async project(id: string): Promise<Project | undefined> {
    return (await this.projectMap()).get(id);
  }

  async listProjects(orgId?: string): Promise<Project[]> {
    const all = [...(await this.projectMap()).values()];
    return all.filter((p) => orgId === undefined || p.org_id === orgId).sort((a, b) => a.id.localeCompare(b.id));
  }

  async createProject(input: { id: string; name: string; platform?: string; orgId?: string }): Promise<Project> {
    if (!PROJECT_ID_PATTERN.test(input.id))
      throw new CatalogError('invalid', 'a project id is 1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit');
    if (!input.name.trim()) throw new CatalogError('invalid', 'a project needs a name');
    const orgId = input.orgId ?? (await this.defaultOrganization()).id;
    if (await this.project(input.id)) throw new CatalogError('conflict', `project ${input.id} exists already`);
    const project: Project = {
      id: input.id,
      org_id: orgId,
      slug: input.id,
      name: input.name.trim(),
      platform: input.platform ?? null,
      public_key: randomBytes(16).toString('hex'),
      created_at: new Date().toISOString(),
    };
    await this.db.write(async (c) => {
      await c.run('INSERT INTO projects VALUES (?, ?, ?, ?, ?, ?, ?)', [
        project.id,
        project.org_id,
        project.slug,
        project.name,
        project.platform,
        project.public_key,
        project.created_at,
      ]);
    });
    this.projects = undefined;
    this.changed({ kind: 'project', project });
    return project;
  }

  async createKey(input: { dataset: Dataset; projectId?: string; orgId?: string; name?: string }): Promise<CreatedKey> {
    let orgId = input.orgId;
    if (input.projectId) {
      const project = await this.project(input.projectId);
      if (!project) throw new CatalogError('not_found', `no project ${input.projectId}`);
      orgId = project.org_id;
    }
    orgId ??= (await this.defaultOrganization()).id;
    const secret = newSecret(input.dataset);
    const key: ApiKey = {
      id: `key_${randomBase62(12)}`,
      org_id: orgId,
      project_id: input.projectId ?? null,
      dataset: input.dataset,
      name: input.name ?? null,
      display_prefix: displayPrefix(secret),
      created_at: new Date().toISOString(),
      revoked_at: null,
    };
    await this.db.write(async (c) => {
      await c.run('INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)', [
        key.id,
        key.org_id,
        key.project_id,
        key.dataset,
        key.name,
        key.display_prefix,
        hashSecret(secret),
        key.created_at,
      ]);
    });
    this.keysChanged();
    this.changed({ kind: 'key', key, secret_hash: hashSecret(secret) });
    return { key, secret };
  }

  async listKeys(filter: { projectId?: string } = {}): Promise<ApiKey[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT id, org_id, project_id, dataset, name, display_prefix, created_at, revoked_at FROM api_keys
         WHERE $project IS NULL OR project_id = $project ORDER BY created_at, id`,
      { project: filter.projectId ?? null },
    );
    return rows<ApiKey>(result);
  }

  async revokeKey(id: string): Promise<ApiKey> {
    const revoked = await this.db.write(async (c) => {
      const result = await c.runAndReadAll(
        `UPDATE api_keys SET revoked_at = now() WHERE id = ? AND revoked_at IS NULL
         RETURNING id, org_id, project_id, dataset, name, display_prefix, created_at, revoked_at, secret_hash`,
        [id],
      );
      return rows<ApiKey & { secret_hash: string }>(result)[0];
    });
    if (!revoked) {
      const known = (await this.listKeys()).some((k) => k.id === id);
      throw new CatalogError(known ? 'conflict' : 'not_found', known ? `key ${id} is revoked already` : `no key ${id}`);
    }
    this.keysChanged();
    const { secret_hash, ...key } = revoked;
    this.changed({ kind: 'key', key, secret_hash });
    return key;
  }

  /** The key a secret belongs to, if it exists and is not revoked. */
  async keyForSecret(secret: string): Promise<ApiKey | undefined> {
    if (!datasetOf(secret)) return undefined;
    const result = await this.db.reader().runAndReadAll(
      `SELECT id, org_id, project_id, dataset, name, display_prefix, created_at, revoked_at FROM api_keys
         WHERE secret_hash = ? AND revoked_at IS NULL`,
      [hashSecret(secret)],
    );
    return rows<ApiKey>(result)[0];
  }

  private async projectMap(): Promise<Map<string, Project>> {
    if (!this.projects) {
      const result = await this.db.reader().runAndReadAll('SELECT * FROM projects');
      this.projects = new Map(rows<Project>(result).map((p) => [p.id, p]));
    }
    return this.projects;
  }

  private changed(change: CatalogChange): void {
    for (const listener of this.changeListeners) listener(change);
  }

  private keysChanged(): void {
    for (const listener of this.keyListeners) listener();
  }
}
