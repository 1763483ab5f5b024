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
    timeout_ms: z.int().min(1).default(10_000).describe('How long one request may take (connect, send, answer) before it counts as failed'),
    concurrency: z.int().min(1).max(64).default(4).describe('Requests sent at once'),
    poll_interval_ms: z
      .int()
      .min(10)
      .default(5_000)
      .describe('How often the outbox is read for due deliveries when nothing wakes it (new firings wake it at once)'),
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
        'Send webhooks and Slack messages to loopback, link-local (169.254.0.0/16, fe80::/10) and cloud metadata addresses (100.100.100.200, fd00:ec2::254); refused by default',
      ),
  })
  .strict();

export type AlertingConfig = z.output<typeof alertingConfigSchema>;
export type DeliveryConfig = AlertingConfig['delivery'];
