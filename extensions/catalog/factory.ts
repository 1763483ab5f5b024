import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { databaseOf } from '../duckdb/index.js';
import { CatalogExtension } from './extension.js';

export const catalogExtensionConfigSchema = z.object({}).strict();

export const catalogExtensionFactory: ExtensionFactory<z.infer<typeof catalogExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'catalog',
  description: 'Organizations, projects, API and DSN keys, web app users and sessions; bearer-key authentication',
  configSchema: catalogExtensionConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb'],
  // With a shared control plane projects are created on any node: ingest ids are hashed, not max + 1.
  create: ({ host }) => new CatalogExtension(databaseOf(host), host.settings.control_plane.brokers.trim() !== '' ? 'hashed' : 'sequential'),
};
