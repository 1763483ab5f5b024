import { z } from 'zod';
import type { ExtensionFactory } from '../../src/engine/extension.js';
import { databaseOf } from '../duckdb/index.js';
import { ArtifactsExtension } from './extension.js';

export const artifactsExtensionConfigSchema = z.object({}).strict();

export const artifactsExtensionFactory: ExtensionFactory<z.infer<typeof artifactsExtensionConfigSchema>> = {
  kind: 'extension',
  type: 'artifacts',
  description: 'Uploaded source maps, ProGuard mappings and Breakpad symbols under service.artifacts.path (the symbolication processor, /v1/sourcemaps)',
  configSchema: artifactsExtensionConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb'],
  // With a shared control plane, other nodes share the artifacts path (see artifacts.ts).
  create: ({ host }) => new ArtifactsExtension(databaseOf(host), host.settings.artifacts.path, host.settings.control_plane.brokers.trim() !== '', host.logger),
};
