import type { ProcessorFactory } from '../../src/engine/component.js';
import { alertingConfigSchema, rulePolicyOf, type AlertingConfig } from './config.js';
import { ALERTING_METRICS } from './metrics.js';
import { AlertingProcessor } from './processor.js';
import { runtimeFor } from './runtime.js';
import { alertsOf } from '../../extensions/alerts/index.js';

export const alertingFactory: ProcessorFactory<AlertingConfig> = {
  kind: 'processor',
  type: 'alerting',
  signals: ['events', 'traces'],
  stability: { events: 'alpha', traces: 'alpha' },
  // Issue rules fire on what the issues processor decided; counting rules read validated records.
  requires: { events: ['issue_transition'], traces: ['validated'] },
  provides: {},
  // One set of windows, one evaluation timer and one delivery loop over the service's one outbox.
  singleton: true,
  metrics: ALERTING_METRICS,
  extensions: ['alerts', 'catalog', 'issues', 'query'],
  description:
    'Evaluates alert rules (new_issue, regression, error_spike on events; latency on spans) and delivers their notifications (webhook, Slack, log) at least once through an outbox',
  configSchema: alertingConfigSchema,
  // The rules API checks destinations and limits on any node, also one that delivers nothing.
  configureHost: (config, host) => alertsOf(host).configure(rulePolicyOf(config)),
  create(settings) {
    return new AlertingProcessor(runtimeFor(settings.host, settings.id.text, settings.config), settings.signal);
  },
};
