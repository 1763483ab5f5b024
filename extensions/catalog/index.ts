// The catalog extension's public interface.
import type { Authenticator } from '../../src/auth/authenticator.js';
import { requireExtension, type ExtensionLookup } from '../../src/engine/extension.js';
import type { Catalog } from './catalog.js';
import { CatalogExtension } from './extension.js';
import type { Users } from './users.js';

export * from './catalog.js';
export * from './users.js';
export { CATALOG_MIGRATIONS } from './migrations.js';
export { catalogExtensionFactory } from './factory.js';
export { CatalogExtension } from './extension.js';

/** Organizations, projects and keys (a component that declares `extensions: ['catalog']`). */
export function catalogOf(host: ExtensionLookup): Catalog {
  return requireExtension(host, 'catalog', CatalogExtension).catalog;
}

/** The web app's users and sessions. */
export function usersOf(host: ExtensionLookup): Users {
  return requireExtension(host, 'catalog', CatalogExtension).users;
}

/** Bearer-key authentication over the catalog's keys, cached. */
export function authenticatorOf(host: ExtensionLookup): Authenticator {
  return requireExtension(host, 'catalog', CatalogExtension).auth;
}
