import { catalogOf } from '../../extensions/catalog/index.js';
import type { ProcessorFactory } from '../../src/engine/component.js';
import { scrubbingConfigSchema, type ScrubbingConfig } from './config.js';
import { ScrubbingProcessor } from './processor.js';

export const scrubbingFactory: ProcessorFactory<ScrubbingConfig> = {
  kind: 'processor',
  type: 'scrubbing',
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'alpha', traces: 'alpha', replays: 'alpha' },
  requires: { events: ['validated'], traces: ['validated'], replays: ['validated'] },
  provides: { events: ['scrubbed'], traces: ['scrubbed'], replays: ['scrubbed'] },
  before: ['symbolication', 'grouping', 'issues', 'alerting'],
  guardsStorage: true,
  metrics: [],
  extensions: ['catalog'],
  description: 'Replaces passwords, tokens, card numbers and chosen personal data with [Filtered] (and masks replay inputs) before anything stores them',
  configSchema: scrubbingConfigSchema,
  create(settings) {
    const { enabled, ...options } = settings.config;
    if (!enabled) return { process: () => undefined };
    return new ScrubbingProcessor(settings.signal, options, settings.host === undefined ? undefined : catalogOf(settings.host));
  },
};
