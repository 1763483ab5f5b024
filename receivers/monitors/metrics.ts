// The monitors receiver's Prometheus metrics.
import { Counter, Gauge, type Registry } from 'prom-client';

export const MONITOR_METRICS = [
  'faultline_monitor_checkins_total',
  'faultline_monitor_checks_total',
  'faultline_monitor_failures_total',
  'faultline_monitor_partitions',
] as const;

export interface MonitorMetrics {
  checkins: Counter<'status'>;
  checks: Counter<'result'>;
  failures: Counter<'kind'>;
  partitions: Gauge;
}

export function monitorMetrics(registry: Registry): MonitorMetrics {
  return {
    checkins: new Counter({
      name: 'faultline_monitor_checkins_total',
      help: 'Cron check-ins taken in, by status (in_progress, ok, error)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    checks: new Counter({
      name: 'faultline_monitor_checks_total',
      help: 'Uptime checks run, by result (ok, timeout, refused, dns, tls, unreachable, http_<status>)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    failures: new Counter({
      name: 'faultline_monitor_failures_total',
      help: 'Monitor failures detected, by kind (missed, timeout, error, down)',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    partitions: new Gauge({
      name: 'faultline_monitor_partitions',
      help: 'With Kafka: partitions of the monitors topic this node decides for (followed up to where they were when assigned)',
      registers: [registry],
    }),
  };
}
