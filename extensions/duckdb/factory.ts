import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { DuckdbExtension } from './extension.js';

export const duckdbExtensionConfigSchema = z.object({}).strict();

export const duckdbExtensionFactory: ExtensionFactory<z.infer<typeof duckdbExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'duckdb',
  description: "The service's DuckDB file under service.data_dir: the extensions' tables, and the duckdb exporter's",
  configSchema: duckdbExtensionConfigSchema,
  defaultConfig: () => ({}),
  create: ({ host }) => new DuckdbExtension(host.settings.data_dir),
};
