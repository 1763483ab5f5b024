// The monitors receiver's Prometheus metrics.
import { Counter, type Registry } from 'prom-client';

export const MONITOR_METRICS = ['faultline_monitor_checkins_total', 'faultline_monitor_checks_total', 'faultline_monitor_failures_total'] as const;

export interface MonitorMetrics {
  checkins: Counter<'status'>;
  checks: Counter<'result'>;
  failures: Counter<'kind'>;
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
  };
}
