import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { alertsOf } from '../alerts/index.js';
import { artifactsOf } from '../artifacts/index.js';
import { catalogOf } from '../catalog/index.js';
import { databaseOf } from '../duckdb/index.js';
import { issueStatesOf } from '../issues/index.js';
import { ControlPlaneExtension } from './extension.js';

export const controlPlaneExtensionConfigSchema = z.object({}).strict();

export const controlPlaneExtensionFactory: ExtensionFactory<z.infer<typeof controlPlaneExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'control_plane',
  description: 'With service.control_plane.brokers: replicates keys, projects, issue statuses, alert rules and artifacts between nodes over Kafka',
  configSchema: controlPlaneExtensionConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb', 'catalog', 'issues', 'alerts', 'artifacts'],
  create: ({ host }) =>
    new ControlPlaneExtension(
      {
        brokers: host.settings.control_plane.brokers
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean),
        topic: host.settings.control_plane.topic,
      },
      {
        database: databaseOf(host),
        catalog: catalogOf(host),
        issueStates: issueStatesOf(host),
        alertRules: alertsOf(host).rules,
        alerts: alertsOf(host),
        artifacts: artifactsOf(host),
      },
      host.logger,
    ),
};
