import type { ProcessorFactory } from '../../src/engine/component.js';
import { groupingConfigSchema, type GroupingConfig } from './config.js';
import { compileRules } from './compile-rules.js';
import { GroupingProcessor } from './processor.js';
import { groupingVersionsOf } from '../../extensions/issues/index.js';

export const groupingFactory: ProcessorFactory<GroupingConfig> = {
  kind: 'processor',
  type: 'grouping',
  signals: ['events'],
  stability: { events: 'beta' },
  requires: { events: ['validated'] },
  provides: { events: ['issue_id', 'title', 'culprit', 'root_cause', 'grouping_hash', 'grouping_fallback'] },
  metrics: [],
  extensions: ['issues'],
  description: 'Fingerprints error events (custom fingerprint, in-app frames, or parameterized value) and sets issue_id, title, culprit and root_cause',
  configSchema: groupingConfigSchema,
  create(settings) {
    if (settings.signal !== 'events') {
      throw new Error(`processor "${settings.id.text}" handles only events, not ${settings.signal}`);
    }
    return new GroupingProcessor(settings.config, compileRules(settings.config.rules), groupingVersionsOf(settings.host));
  },
};
