// What the API and the Sentry SDKs may send: monitors, their changes and check-ins, validated with
// zod so every problem comes back with its path.
import { z } from 'zod';

const SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const slug = z.string().regex(SLUG, 'must be 1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit');

export const scheduleSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('crontab'), value: z.string().min(1).max(100) }).strict(),
  z.object({ type: z.literal('interval'), value: z.int().min(1).max(10_000), unit: z.enum(['minute', 'hour', 'day']) }).strict(),
]);

const cronFields = {
  schedule: scheduleSchema,
  checkin_margin_minutes: z.int().min(0).max(1440).default(1),
  max_runtime_minutes: z.int().min(1).max(10_080).default(30),
  timezone: z.string().min(1).max(64).default('UTC'),
};

const headersSchema = z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'is not a header name'), z.string().max(4096));

const statusList = z.array(z.int().min(100).max(599)).min(1).max(20);

const uptimeFields = {
  url: z.url({ protocol: /^https?$/ }).max(2048),
  method: z.enum(['GET', 'HEAD', 'POST']).default('GET'),
  interval_seconds: z.int().min(1).max(86_400).default(60),
  timeout_ms: z.int().min(100).max(60_000).default(10_000),
  expected_status: z.union([z.literal('2xx'), statusList]).default('2xx'),
  headers: headersSchema.default({}),
  body: z
    .string()
    .max(64 * 1024)
    .nullable()
    .default(null),
  failure_threshold: z.int().min(1).max(100).default(2),
};

const common = {
  project_id: z.string().min(1).max(64).optional(),
  slug,
  name: z.string().min(1).max(200).optional(),
  environment: z.string().min(1).max(64).nullable().default(null),
  paused: z.boolean().default(false),
};

export const createMonitorSchema = z.discriminatedUnion('type', [
  z.object({ ...common, type: z.literal('cron'), ...cronFields }).strict(),
  z.object({ ...common, type: z.literal('uptime'), ...uptimeFields }).strict(),
]);
export type CreateMonitorInput = z.output<typeof createMonitorSchema>;

/** A PATCH: any field of the monitor's type but its slug, type and project (no defaults: absent is unchanged). */
export const patchMonitorSchema = z
  .object({
    name: z.string().min(1).max(200).optional(),
    environment: z.string().min(1).max(64).nullable().optional(),
    paused: z.boolean().optional(),
    schedule: scheduleSchema.optional(),
    checkin_margin_minutes: z.int().min(0).max(1440).optional(),
    max_runtime_minutes: z.int().min(1).max(10_080).optional(),
    timezone: z.string().min(1).max(64).optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    method: z.enum(['GET', 'HEAD', 'POST']).optional(),
    interval_seconds: z.int().min(1).max(86_400).optional(),
    timeout_ms: z.int().min(100).max(60_000).optional(),
    expected_status: z.union([z.literal('2xx'), statusList]).optional(),
    headers: headersSchema.optional(),
    body: z
      .string()
      .max(64 * 1024)
      .nullable()
      .optional(),
    failure_threshold: z.int().min(1).max(100).optional(),
  })
  .strict();
export type PatchMonitorInput = z.output<typeof patchMonitorSchema>;

export const checkinSchema = z
  .object({
    project_id: z.string().min(1).max(64).optional(),
    status: z.enum(['in_progress', 'ok', 'error']),
    check_in_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z, a-z, 0-9, _ and -')
      .optional(),
    duration_ms: z
      .number()
      .min(0)
      .max(7 * 86_400_000)
      .optional(),
    environment: z.string().min(1).max(64).optional(),
  })
  .strict();
export type CheckinInput = z.output<typeof checkinSchema>;

/** A Sentry SDK's `check_in` item (durations in seconds; monitor_config upserts the monitor). */
export const sentryCheckinSchema = z.object({
  check_in_id: z.string().min(1).max(64).optional(),
  monitor_slug: z.string().min(1).max(128),
  status: z.enum(['in_progress', 'ok', 'error']),
  duration: z
    .number()
    .min(0)
    .max(7 * 86_400)
    .optional(),
  environment: z.string().min(1).max(64).optional(),
  monitor_config: z
    .object({
      schedule: z.discriminatedUnion('type', [
        z.object({ type: z.literal('crontab'), value: z.string().min(1).max(100) }),
        z.object({ type: z.literal('interval'), value: z.int().min(1).max(10_000), unit: z.enum(['minute', 'hour', 'day']) }),
      ]),
      checkin_margin: z.int().min(0).max(1440).optional(),
      max_runtime: z.int().min(1).max(10_080).optional(),
      timezone: z.string().min(1).max(64).optional(),
    })
    .optional(),
});
export type SentryCheckin = z.output<typeof sentryCheckinSchema>;

/** Sentry's slugs may hold capitals and dots; ours are lower case with `_` and `-`. */
export function sentrySlug(value: string): string {
  return (
    value
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[-_]+/, '')
      .slice(0, 64) || 'monitor'
  );
}
