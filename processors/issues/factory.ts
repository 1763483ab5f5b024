import type { ProcessorFactory } from '../../src/engine/component.js';
import { issuesConfigSchema, type IssuesConfig } from './config.js';
import { IssuesProcessor } from './processor.js';
import { issueStatesOf } from '../../extensions/issues/index.js';

export const issuesFactory: ProcessorFactory<IssuesConfig> = {
  kind: 'processor',
  type: 'issues',
  signals: ['events'],
  stability: { events: 'alpha' },
  requires: { events: ['issue_id'] },
  provides: { events: ['issue_transition'] },
  metrics: [],
  extensions: ['issues'],
  description: 'Decides whether each event opens its issue or reopens a resolved one, records it in the catalog and sets issue_transition',
  configSchema: issuesConfigSchema,
  create(settings) {
    if (settings.signal !== 'events') throw new Error(`processor "${settings.id.text}" handles only events, not ${settings.signal}`);
    return new IssuesProcessor(settings.id.text, issueStatesOf(settings.host), settings.host.logger, settings.config.ignore_check_interval_ms);
  },
};
