import { z } from 'zod';

/** The `monitors` receiver's YAML section. An absent section is `{}`: every key has a default. */
export const monitorsConfigSchema = z
  .object({
    detection_interval_ms: z
      .int()
      .min(100)
      .default(10_000)
      .describe('How often cron monitors are checked for missed and timed-out runs, and uptime monitors for due checks'),
    max_monitors_per_project: z.int().min(1).max(10_000).default(100).describe('Monitors one project (and dataset) may have'),
    min_uptime_interval_seconds: z.int().min(1).default(30).describe('The shortest interval_seconds an uptime monitor may ask for'),
    uptime_concurrency: z.int().min(1).max(64).default(8).describe('Uptime checks run at once'),
    max_redirects: z.int().min(0).max(10).default(3).describe('Redirects an uptime check follows (each target checked like the first)'),
    allow_private_destinations: z
      .boolean()
      .default(false)
      .describe('Let uptime checks reach loopback, private, link-local and metadata addresses; refused by default'),
  })
  .strict();

export type MonitorsConfig = z.output<typeof monitorsConfigSchema>;
