import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { databaseOf } from '../duckdb/index.js';
import { IssuesExtension } from './extension.js';

export const issuesExtensionConfigSchema = z.object({}).strict();

export const issuesExtensionFactory: ExtensionFactory<z.infer<typeof issuesExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'issues',
  description: "Issue statuses (the issues processor and PATCH /v1/issues) and projects' grouping versions and issue aliases",
  configSchema: issuesExtensionConfigSchema,
  defaultConfig: () => ({}),
  // Its grouping-versions table starts with a row per project of the catalog.
  dependencies: ['duckdb', 'catalog'],
  create: ({ host }) => new IssuesExtension(databaseOf(host)),
};
