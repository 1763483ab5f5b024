import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { databaseOf } from '../duckdb/index.js';
import { AlertsExtension } from './extension.js';

export const alertsExtensionConfigSchema = z.object({}).strict();

export const alertsExtensionFactory: ExtensionFactory<z.infer<typeof alertsExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'alerts',
  description: 'Alert rules, their firings and the outbox of deliveries (the alerting processor and /v1/alerts)',
  configSchema: alertsExtensionConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb'],
  create: ({ host }) => new AlertsExtension(databaseOf(host)),
};
