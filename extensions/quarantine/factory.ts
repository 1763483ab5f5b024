import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { databaseOf } from '../duckdb/index.js';
import { QuarantineExtension } from './extension.js';

export const quarantineExtensionConfigSchema = z.object({}).strict();

export const quarantineExtensionFactory: ExtensionFactory<z.infer<typeof quarantineExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'quarantine',
  description: 'Acknowledged items an exporter could not store, kept with the reason (`faultline quarantine list`)',
  configSchema: quarantineExtensionConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb'],
  create: ({ host }) => new QuarantineExtension(databaseOf(host), host.metrics),
};
