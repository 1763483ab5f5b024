import type { ProcessorFactory } from '../../src/engine/component.js';
import { validationConfigSchema, type ValidationConfig } from './config.js';
import { EventValidationProcessor } from './processor.js';

export const validationFactory: ProcessorFactory<ValidationConfig> = {
  kind: 'processor',
  type: 'validation',
  signals: ['events'],
  description: 'Checks ingested records against the API schema, normalizes them and applies size caps.',
  configSchema: validationConfigSchema,
  create(settings) {
    // One validator per signal; spans get their own beside the event one.
    switch (settings.signal) {
      case 'events':
        return new EventValidationProcessor(settings.config);
      default:
        throw new Error(`validation: signal ${settings.signal} is not supported`);
    }
  },
};
