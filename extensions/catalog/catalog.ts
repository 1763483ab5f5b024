// Control-plane records: organizations, projects and API keys, in catalog tables of the service's
// DuckDB file. Projects are few and read on every request, so they are cached in memory.
import { createHash, randomBytes } from 'node:crypto';
import { datasetOf, displayPrefix, hashSecret, newSecret, randomBase62 } from '../../src/auth/keys.js';
import type { Dataset } from '../../src/engine/item.js';
import type { DataScrubbing } from '../../src/records/data-scrubbing.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';

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
  /** The public key of the project's first DSN key (kept for older readers; DSN keys are api_keys of kind dsn). */
  public_key: string;
  created_at: string;
  /** Stable and numeric: the project part of its DSN and of the /api/{ingest_id}/ routes. */
  ingest_id: number;
  /** Origins browser SDKs may send from (CORS); null: any (`*`). */
  allowed_origins: string[] | null;
  /** What the scrubbing processor applies over its YAML options (docs/data-protection.md); null: the YAML's alone. */
  data_scrubbing: DataScrubbing | null;
}

export type KeyKind = 'api' | 'dsn';

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
  /** `api`: a secret for the /v1 API (hashed); `dsn`: a project's public DSN key, for Sentry-SDK ingest only. */
  kind: KeyKind;
  /** DSN keys: the public key, in the clear (it is in every browser bundle that reports). */
  public_key: string | null;
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

const KEY_COLUMNS = 'id, org_id, project_id, dataset, name, display_prefix, created_at, revoked_at, kind, public_key';

/** DSN keys are looked up by their public key; the hash column only has to be unique. */
function dsnHash(publicKey: string): string {
  return `dsn:${publicKey}`;
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
  private dsnKeys?: Map<string, ApiKey>;
  /** Counts key changes, so a read of the DSN keys under way during one is not cached. */
  private keyGeneration = 0;
  private readonly keyListeners: Array<() => void> = [];

  constructor(
    private readonly db: Database,
    /**
     * How a new project's ingest id is chosen: `sequential` (max + 1: one node), or `hashed` (with a
     * shared control plane, where projects are created on any node: see hashedIngestId).
     */
    private readonly ingestIds: 'sequential' | 'hashed' = 'sequential',
  ) {}

  /** Called whenever a key is created or revoked, so caches of credentials can be dropped. */
  onKeysChanged(listener: () => void): void {
    this.keyListeners.push(listener);
  }

  /**
   * A project or key as another node wrote it. Idempotent: a project is created once (the first
   * one wins; only its allowed origins and data-scrubbing settings change later), a key is inserted once and a revocation sticks.
   */
  async apply(change: CatalogChange): Promise<void> {
    if (change.kind === 'project') {
      const p = change.project;
      await this.db.write((c) =>
        c.run(
          `INSERT INTO projects (id, org_id, slug, name, platform, public_key, created_at, ingest_id, allowed_origins, data_scrubbing)
             VALUES (?, ?, ?, ?, ?, ?, ?::TIMESTAMP, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET allowed_origins = excluded.allowed_origins, data_scrubbing = excluded.data_scrubbing`,
          [
            p.id,
            p.org_id,
            p.slug,
            p.name,
            p.platform,
            p.public_key,
            p.created_at,
            p.ingest_id,
            p.allowed_origins?.length ? JSON.stringify(p.allowed_origins) : null,
            p.data_scrubbing ? JSON.stringify(p.data_scrubbing) : null,
          ],
        ),
      );
      this.projects = undefined;
    } else if (change.kind === 'key') {
      const k = change.key;
      await this.db.write(async (c) => {
        const existing = rows<{ revoked_at: string | null }>(await c.runAndReadAll('SELECT revoked_at FROM api_keys WHERE id = ?', [k.id]))[0];
        if (!existing)
          await c.run(
            `INSERT INTO api_keys (id, org_id, project_id, dataset, name, display_prefix, secret_hash, created_at, revoked_at, kind, public_key)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?::TIMESTAMP, ?::TIMESTAMP, ?, ?) ON CONFLICT DO NOTHING`,
            [
              k.id,
              k.org_id,
              k.project_id,
              k.dataset,
              k.name,
              k.display_prefix,
              change.secret_hash,
              k.created_at,
              k.revoked_at,
              k.kind ?? 'api',
              k.public_key ?? null,
            ],
          );
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

  /** The project whose DSN names `ingestId`. */
  async projectByIngestId(ingestId: number): Promise<Project | undefined> {
    for (const project of (await this.projectMap()).values()) if (project.ingest_id === ingestId) return project;
    return undefined;
  }

  /** Sets the origins browser SDKs may report from (null or empty: any). */
  async setAllowedOrigins(id: string, origins: string[] | null): Promise<Project> {
    const old = await this.project(id);
    if (!old) throw new CatalogError('not_found', `no project ${id}`);
    const value = origins && origins.length ? JSON.stringify(origins) : null;
    await this.db.write(async (c) => {
      await c.run('UPDATE projects SET allowed_origins = ? WHERE id = ?', [value, id]);
      await this.db.recordChange(c, { kind: 'project', project: { ...old, allowed_origins: value === null ? null : [...(origins as string[])] } });
    });
    this.projects = undefined;
    return (await this.project(id)) as Project;
  }

  /** Sets the project's data-scrubbing settings (null: the YAML's alone); validated by the caller (dataScrubbingSchema). */
  async setDataScrubbing(id: string, settings: DataScrubbing | null): Promise<Project> {
    const old = await this.project(id);
    if (!old) throw new CatalogError('not_found', `no project ${id}`);
    const value = settings === null ? null : JSON.stringify(settings);
    await this.db.write(async (c) => {
      await c.run('UPDATE projects SET data_scrubbing = ? WHERE id = ?', [value, id]);
      await this.db.recordChange(c, { kind: 'project', project: { ...old, data_scrubbing: settings } });
    });
    this.projects = undefined;
    return (await this.project(id)) as Project;
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
      ingest_id: 0,
      allowed_origins: null,
      data_scrubbing: null,
    };
    const dsnKey: ApiKey = {
      id: `key_${randomBase62(12)}`,
      org_id: orgId,
      project_id: project.id,
      dataset: 'live',
      name: 'default DSN key',
      display_prefix: `${project.public_key.slice(0, 12)}…`,
      created_at: project.created_at,
      revoked_at: null,
      kind: 'dsn',
      public_key: project.public_key,
    };
    await this.db.write(async (c) => {
      // Allocated inside the write: writes are serialized, so no two projects get one number.
      if (this.ingestIds === 'hashed') {
        const taken = new Set(rows<{ ingest_id: number }>(await c.runAndReadAll('SELECT ingest_id FROM projects')).map((r) => Number(r.ingest_id)));
        let attempt = 0;
        do project.ingest_id = hashedIngestId(project.id, attempt++);
        while (taken.has(project.ingest_id));
      } else {
        const next = rows<{ n: number }>(await c.runAndReadAll('SELECT coalesce(max(ingest_id), 0) + 1 AS n FROM projects'))[0];
        project.ingest_id = next.n;
      }
      await c.run(
        `INSERT INTO projects (id, org_id, slug, name, platform, public_key, created_at, ingest_id, allowed_origins)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
        [project.id, project.org_id, project.slug, project.name, project.platform, project.public_key, project.created_at, project.ingest_id],
      );
      await c.run(
        `INSERT INTO api_keys (id, org_id, project_id, dataset, name, display_prefix, secret_hash, created_at, revoked_at, kind, public_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 'dsn', ?)`,
        [dsnKey.id, orgId, project.id, dsnKey.dataset, dsnKey.name, dsnKey.display_prefix, dsnHash(project.public_key), project.created_at, project.public_key],
      );
      await this.db.recordChange(c, { kind: 'project', project });
      await this.db.recordChange(c, { kind: 'key', key: dsnKey, secret_hash: dsnHash(project.public_key) });
    });
    this.projects = undefined;
    this.keysChanged();
    return project;
  }

  /** `dsn`: a project's public DSN key (needs projectId); its "secret" is the public key. */
  async createKey(input: { dataset: Dataset; projectId?: string; orgId?: string; name?: string; dsn?: boolean }): Promise<CreatedKey> {
    if (input.dsn && !input.projectId) throw new CatalogError('invalid', 'a DSN key belongs to one project: name it');
    let orgId = input.orgId;
    if (input.projectId) {
      const project = await this.project(input.projectId);
      if (!project) throw new CatalogError('not_found', `no project ${input.projectId}`);
      orgId = project.org_id;
    }
    orgId ??= (await this.defaultOrganization()).id;
    const secret = input.dsn ? randomBytes(16).toString('hex') : newSecret(input.dataset);
    const key: ApiKey = {
      id: `key_${randomBase62(12)}`,
      org_id: orgId,
      project_id: input.projectId ?? null,
      dataset: input.dataset,
      name: input.name ?? null,
      display_prefix: displayPrefix(secret),
      created_at: new Date().toISOString(),
      revoked_at: null,
      kind: input.dsn ? 'dsn' : 'api',
      public_key: input.dsn ? secret : null,
    };
    const secretHash = input.dsn ? dsnHash(secret) : hashSecret(secret);
    await this.db.write(async (c) => {
      await c.run(
        `INSERT INTO api_keys (id, org_id, project_id, dataset, name, display_prefix, secret_hash, created_at, revoked_at, kind, public_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
        [key.id, key.org_id, key.project_id, key.dataset, key.name, key.display_prefix, secretHash, key.created_at, key.kind, key.public_key],
      );
      await this.db.recordChange(c, { kind: 'key', key, secret_hash: secretHash });
    });
    this.keysChanged();
    return { key, secret };
  }

  async listKeys(filter: { projectId?: string } = {}): Promise<ApiKey[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT ${KEY_COLUMNS} FROM api_keys
         WHERE $project IS NULL OR project_id = $project ORDER BY created_at, id`,
      { project: filter.projectId ?? null },
    );
    return rows<ApiKey>(result);
  }

  async revokeKey(id: string): Promise<ApiKey> {
    const revoked = await this.db.write(async (c) => {
      const result = await c.runAndReadAll(
        `UPDATE api_keys SET revoked_at = now() WHERE id = ? AND revoked_at IS NULL
         RETURNING ${KEY_COLUMNS}, secret_hash`,
        [id],
      );
      const row = rows<ApiKey & { secret_hash: string }>(result)[0];
      if (row) {
        const { secret_hash, ...key } = row;
        await this.db.recordChange(c, { kind: 'key', key, secret_hash });
      }
      return row;
    });
    if (!revoked) {
      const known = (await this.listKeys()).some((k) => k.id === id);
      throw new CatalogError(known ? 'conflict' : 'not_found', known ? `key ${id} is revoked already` : `no key ${id}`);
    }
    this.keysChanged();
    const { secret_hash: _hash, ...key } = revoked;
    return key;
  }

  /** The key a secret belongs to, if it exists and is not revoked. */
  async keyForSecret(secret: string): Promise<ApiKey | undefined> {
    if (!datasetOf(secret)) return undefined;
    const result = await this.db.reader().runAndReadAll(
      `SELECT ${KEY_COLUMNS} FROM api_keys
         WHERE secret_hash = ? AND revoked_at IS NULL AND kind = 'api'`,
      [hashSecret(secret)],
    );
    return rows<ApiKey>(result)[0];
  }

  /** The live DSN key with this public key, if it exists and is not revoked (cached until keys change). */
  async dsnKey(publicKey: string): Promise<ApiKey | undefined> {
    // A read under way while keys changed may predate a revocation: it is read again, not cached.
    for (let attempt = 0; !this.dsnKeys; attempt++) {
      const generation = this.keyGeneration;
      const result = await this.db.reader().runAndReadAll(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE kind = 'dsn' AND revoked_at IS NULL`);
      const read = new Map(rows<ApiKey>(result).map((k) => [k.public_key as string, k]));
      if (generation === this.keyGeneration) this.dsnKeys = read;
      else if (attempt >= 2) return read.get(publicKey);
    }
    return this.dsnKeys.get(publicKey);
  }

  private async projectMap(): Promise<Map<string, Project>> {
    if (!this.projects) {
      const result = await this.db.reader().runAndReadAll('SELECT * FROM projects');
      this.projects = new Map(
        rows<Omit<Project, 'allowed_origins' | 'data_scrubbing'> & { allowed_origins: string | null; data_scrubbing: string | null }>(result).map((p) => [
          p.id,
          {
            ...p,
            allowed_origins: p.allowed_origins === null ? null : (JSON.parse(p.allowed_origins) as string[]),
            data_scrubbing: p.data_scrubbing === null ? null : (JSON.parse(p.data_scrubbing) as DataScrubbing),
          },
        ]),
      );
    }
    return this.projects;
  }

  private keysChanged(): void {
    this.keyGeneration++;
    this.dsnKeys = undefined;
    for (const listener of this.keyListeners) listener();
  }
}

/** Where hashed ingest ids start: above every sequential one a single node handed out before. */
const HASHED_BASE = 2 ** 31;
const HASHED_RANGE = 2 ** 47;

/**
 * A project's ingest id with a shared control plane: derived from its id (SHA-256, into 2^47
 * numbers above 2^31, at most 15 digits as the Sentry routes take them), so nodes creating projects
 * at once do not hand out one number twice, and two nodes that both create a project of one id
 * agree on it. A number this node already holds moves to the next attempt; two different ids meeting
 * on two nodes before either has seen the other's project is a birthday chance of about n²/2^48
 * (10,000 projects: 4·10⁻⁷).
 */
export function hashedIngestId(projectId: string, attempt = 0): number {
  const digest = createHash('sha256').update(`${projectId}\0${attempt}`).digest();
  return HASHED_BASE + (digest.readUIntBE(0, 6) % HASHED_RANGE);
}
