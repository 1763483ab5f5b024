// What the read API needs: the catalog (keys, projects), the merged read side, and the public URL
// that permalinks and DSNs are built on.
import type { Catalog } from '../storage/catalog.js';
import type { Storage } from '../storage/storage.js';

export interface ApiContext {
  catalog: Catalog;
  storage: Storage;
  /** The service's public URL, without a trailing slash. */
  appUrl: string;
}
