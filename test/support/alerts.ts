// Shared by the alerting tests: a configuration with fast timers and loopback destinations allowed
// (the receivers listen on 127.0.0.1, which allow_private_destinations: true lets through),
// and helpers to create rules and wait for what the evaluator decides.
import { expect } from 'vitest';
import type { TestService } from './service.js';

export interface AlertingYamlOptions {
  attempts?: number;
  allowPrivate?: boolean;
  evaluationMs?: number;
  timeoutMs?: number;
  connectTimeoutMs?: number;
  rulesPerProject?: number;
  testsPerMinute?: number;
}

export function alertingYaml(options: AlertingYamlOptions = {}): string {
  return `
receivers:
  http_api: {}
  otlp: {}
processors:
  validation: {}
  scrubbing: {}
  grouping: {}
  issues: {}
  alerting:
    evaluation_interval_ms: ${options.evaluationMs ?? 100}
    allow_private_destinations: ${options.allowPrivate ?? true}
    limits:
      rules_per_project: ${options.rulesPerProject ?? 100}
      test_notifications_per_minute: ${options.testsPerMinute ?? 60}
    delivery:
      attempts: ${options.attempts ?? 4}
      initial_backoff_ms: 100
      max_backoff_ms: 400
      timeout_ms: ${options.timeoutMs ?? 2000}
      connect_timeout_ms: ${options.connectTimeoutMs ?? 1000}
      poll_interval_ms: 100
exporters:
  duckdb: {}
service:
  pipelines:
    events:
      receivers: [http_api]
      processors: [validation, scrubbing, grouping, issues, alerting]
      exporters: [duckdb]
    traces:
      receivers: [http_api, otlp]
      processors: [validation, scrubbing, alerting]
      exporters: [duckdb]
`;
}

export interface RuleView {
  id: string;
  project_id: string;
  name: string;
  type: string;
  conditions: Record<string, unknown>;
  state: 'ok' | 'firing';
  last_evaluated_at: string | null;
  last_fired_at: string | null;
  last_value: number | null;
  enabled: boolean;
  firings: Array<{
    id: string;
    state: string;
    issue_id: string | null;
    fired_at: string;
    deliveries: Array<{ id: string; type: string; status: string; attempts: number; last_error: string | null }>;
  }>;
}

export async function createRule(svc: TestService, rule: Record<string, unknown>, key?: string): Promise<RuleView> {
  const res = await svc.api('/v1/alerts', { method: 'POST', body: JSON.stringify({ project_id: 'default', frequency: '0s', ...rule }), key });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as RuleView;
}

export async function getRule(svc: TestService, id: string, key?: string): Promise<RuleView> {
  const res = await svc.api(`/v1/alerts/${id}`, { key });
  expect(res.status).toBe(200);
  return (await res.json()) as RuleView;
}

/** Waits until the evaluator has looked at the rule after `since` (epoch ms), and returns the rule then. */
export async function evaluatedAfter(svc: TestService, id: string, since: number, timeoutMs = 10_000): Promise<RuleView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rule = await getRule(svc, id);
    if (rule.last_evaluated_at && Date.parse(rule.last_evaluated_at) > since) return rule;
    if (Date.now() > deadline) throw new Error(`rule ${id} was not evaluated after ${new Date(since).toISOString()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls the rule until `done` holds. */
export async function ruleUntil(svc: TestService, id: string, done: (rule: RuleView) => boolean, timeoutMs = 10_000): Promise<RuleView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rule = await getRule(svc, id);
    if (done(rule)) return rule;
    if (Date.now() > deadline) throw new Error(`rule ${id} never reached the expected state: ${JSON.stringify(rule)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let n = 0;
/** An event of its own issue (a distinct exception type), unless `type` names one. */
export function errorEvent(overrides: Record<string, unknown> = {}, type = `AlertTestError${++n}`): Record<string, unknown> {
  return {
    timestamp: new Date().toISOString(),
    environment: 'production',
    release: 'shop@1.0.0',
    level: 'error',
    exception: {
      type,
      value: 'cart total is undefined',
      stacktrace: [{ filename: 'src/cart.js', function: 'totalOf', lineno: 12, colno: 7, in_app: true }],
    },
    ...overrides,
  };
}
