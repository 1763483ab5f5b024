import { z } from 'zod';

const deliverySchema = z
  .object({
    attempts: z
      .int()
      .min(1)
      .max(100)
      .default(8)
      .describe('Attempts per notification and action before it is marked failed (8: about an hour with the default backoff)'),
    initial_backoff_ms: z
      .int()
      .min(1)
      .default(30_000)
      .describe('Wait before the second attempt; each further wait doubles, with jitter (each wait is 50-100% of the doubled value)'),
    max_backoff_ms: z
      .int()
      .min(1)
      .default(30 * 60_000)
      .describe('Longest wait between two attempts'),
    timeout_ms: z
      .int()
      .min(1)
      .default(10_000)
      .describe('How long one request may take in all (resolve, connect, send, answer) before it counts as failed (last_error: timeout)'),
    connect_timeout_ms: z.int().min(1).default(3_000).describe('How long resolving the host and connecting may take, within timeout_ms (last_error: timeout)'),
    concurrency: z.int().min(1).max(256).default(16).describe('Requests in flight at once, in all'),
    per_destination: z
      .int()
      .min(1)
      .max(256)
      .default(2)
      .describe('Requests in flight at once to one destination (scheme, host and port): a slow receiver holds no more than this'),
    per_project: z
      .int()
      .min(1)
      .max(256)
      .default(8)
      .describe("Requests in flight at once for one project's rules (and dataset): one project's slow receivers leave the rest to the others"),
    poll_interval_ms: z
      .int()
      .min(10)
      .default(5_000)
      .describe('How often the outbox is read for due deliveries when nothing wakes it (new firings wake it at once)'),
    group_id: z
      .string()
      .min(1)
      .default('faultline-alert-delivery')
      .describe(
        "With a control plane: the consumer group of the workers that send shared firings (issue rules'); each sends those of its partitions of the control-plane topic, and a lost worker's go to another",
      ),
    session_timeout_ms: z
      .int()
      .min(1)
      .default(30_000)
      .describe("With a control plane: the delivery group's session timeout: a worker silent this long has its shared firings sent by another"),
    heartbeat_interval_ms: z
      .int()
      .min(1)
      .default(3_000)
      .describe("With a control plane: the delivery group's heartbeat interval (below a third of the session timeout)"),
  })
  .strict();

const limitsSchema = z
  .object({
    rules_per_project: z
      .int()
      .min(1)
      .default(100)
      .describe('Most alert rules one project may have (live and sandbox rules count apart); past it creating one answers 409'),
    test_notifications_per_minute: z
      .int()
      .min(1)
      .default(6)
      .describe('Test notifications (POST /v1/alerts/{id}/test) one project may ask for per minute, as many at once; past it 429 with Retry-After'),
  })
  .strict();

/** The `alerting` processor's YAML section. An absent section is `{}`: every key has a default. */
export const alertingConfigSchema = z
  .object({
    evaluation_interval_ms: z
      .int()
      .min(10)
      .default(15_000)
      .describe('How often error_spike and latency rules are evaluated against their windows (new_issue and regression fire on the event itself)'),
    delivery: deliverySchema.prefault({}),
    allow_private_destinations: z
      .boolean()
      .default(false)
      .describe(
        'Let webhooks and Slack messages go to addresses that are not public: private (10/8, 172.16/12, 192.168/16), CGNAT, loopback, link-local and cloud metadata, unique-local, multicast, reserved (see docs/security.md); refused by default, when a rule is saved and when a request is made',
      ),
    limits: limitsSchema.prefault({}),
  })
  .strict();

export type AlertingConfig = z.output<typeof alertingConfigSchema>;
export type DeliveryConfig = AlertingConfig['delivery'];

/**
 * What the rules API enforces, from the service's `alerting` processor section — also on a node
 * that lists it under `processors:` without running it in a pipeline (a query node) — or the
 * defaults when there is none.
 */
export function rulePolicyOf(section: unknown): { allowPrivate: boolean; rulesPerProject: number; testsPerMinute: number } {
  const config = alertingConfigSchema.parse(section ?? {});
  return {
    allowPrivate: config.allow_private_destinations,
    rulesPerProject: config.limits.rules_per_project,
    testsPerMinute: config.limits.test_notifications_per_minute,
  };
}
