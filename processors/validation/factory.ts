import type { ProcessorFactory } from '../../src/engine/component.js';
import { validationConfigSchema, type ValidationConfig } from './config.js';
import { EventValidationProcessor } from './processor.js';
import { ReplayValidationProcessor } from './replay/processor.js';
import { SpanValidationProcessor } from '../../src/records/span-validation/processor.js';

export const validationFactory: ProcessorFactory<ValidationConfig> = {
  kind: 'processor',
  type: 'validation',
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'beta', traces: 'beta', replays: 'alpha' },
  provides: { events: ['validated'], traces: ['validated'], replays: ['validated'] },
  metrics: ['faultline_processor_rejected_items_total'],
  description: 'Checks ingested records against the API schema, normalizes them and applies size caps.',
  configSchema: validationConfigSchema,
  create(settings) {
    // One validator per signal; items older than the signal's retention are rejected.
    const retention = settings.host?.settings.retention;
    switch (settings.signal) {
      case 'events':
        return new EventValidationProcessor(settings.config, retention?.events_days);
      case 'traces':
        return new SpanValidationProcessor(settings.config, retention?.traces_days);
      case 'replays':
        return new ReplayValidationProcessor(retention?.replays_days);
      default:
        throw new Error(`validation: signal ${settings.signal} is not supported`);
    }
  },
};
