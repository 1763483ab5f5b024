import type { ProcessorFactory } from '../../src/engine/component.js';
import { symbolicationConfigSchema, type SymbolicationConfig } from './config.js';
import { SYMBOLICATION_METRICS, SymbolicationProcessor } from './processor.js';
import { artifactsOf } from '../../extensions/artifacts/index.js';

export const symbolicationFactory: ProcessorFactory<SymbolicationConfig> = {
  kind: 'processor',
  type: 'symbolication',
  signals: ['events'],
  stability: { events: 'alpha' },
  requires: { events: ['validated'] },
  provides: { events: ['symbolicated'] },
  before: ['grouping'],
  metrics: SYMBOLICATION_METRICS,
  extensions: ['artifacts'],
  description:
    'Resolves stack frames to original source: JavaScript through source maps, Java/Kotlin through ProGuard/R8 mappings, native code through Breakpad symbols; keeps the received frames as raw_stacktrace',
  configSchema: symbolicationConfigSchema,
  create(settings) {
    if (settings.signal !== 'events') throw new Error(`processor "${settings.id.text}" handles only events, not ${settings.signal}`);
    return new SymbolicationProcessor(settings.config, {
      id: settings.id.text,
      artifacts: artifactsOf(settings.host),
      registry: settings.host.metrics.registry,
      logger: settings.host.logger,
    });
  },
};
