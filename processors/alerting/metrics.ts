// The alerting processor's Prometheus metrics (one set per service, shared by its pipelines).
import { Counter, Gauge, type Registry } from 'prom-client';

export const ALERTING_METRICS = [
  'faultline_alert_firings_total',
  'faultline_alert_deliveries_total',
  'faultline_alert_deliveries_pending',
  'faultline_alert_delivery_partitions',
] as const;

export interface AlertingMetrics {
  firings: Counter<'type' | 'state'>;
  deliveries: Counter<'action' | 'outcome'>;
  pending: Gauge;
  partitions: Gauge;
}

export function alertingMetrics(registry: Registry): AlertingMetrics {
  return {
    firings: new Counter({
      name: 'faultline_alert_firings_total',
      help: 'Alert notifications recorded in the outbox, by rule type and state (firing, resolved, test)',
      labelNames: ['type', 'state'] as const,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'faultline_alert_deliveries_total',
      help: 'Attempts to deliver alert notifications, by action and outcome (delivered, retried, failed)',
      labelNames: ['action', 'outcome'] as const,
      registers: [registry],
    }),
    pending: new Gauge({
      name: 'faultline_alert_deliveries_pending',
      help: 'Alert deliveries waiting in the outbox for an attempt',
      registers: [registry],
    }),
    partitions: new Gauge({
      name: 'faultline_alert_delivery_partitions',
      help: 'With a control plane: the partitions of its topic whose shared firings this node sends (ready ones)',
      registers: [registry],
    }),
  };
}
