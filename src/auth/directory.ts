// What authentication and project scope read from the catalog, as the least they need: the catalog
// extension provides these (structurally), so the core names no extension.
import type { Dataset } from '../engine/item.js';

/** The fields of a key a principal is made of. */
export interface KeyGrant {
  id: string;
  org_id: string;
  /** null for organization keys. */
  project_id: string | null;
  dataset: Dataset;
}

export interface KeyDirectory {
  keyForSecret(secret: string): Promise<KeyGrant | undefined>;
  onKeysChanged(listener: () => void): void;
}

/** The fields of a project scope checks. */
export interface ProjectRef {
  id: string;
  org_id: string;
}

/** Projects and organizations by id; `P` is the catalog's full project type, handed back as is. */
export interface ProjectDirectory<P extends ProjectRef = ProjectRef> {
  project(id: string): Promise<P | undefined>;
  listProjects(orgId?: string): Promise<P[]>;
  organizations(): Promise<readonly { id: string; default_project_id: string | null }[]>;
}

/** DSN keys by public key and projects by ingest id (the Sentry SDKs' routes). */
export interface DsnDirectory<K extends KeyGrant = KeyGrant, P extends ProjectRef = ProjectRef> {
  dsnKey(publicKey: string): Promise<K | undefined>;
  projectByIngestId(ingestId: number): Promise<P | undefined>;
}
