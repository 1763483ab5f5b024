// A cron monitor's schedule as stored and read: a crontab expression, or a fixed interval.
export type Schedule = { type: 'crontab'; value: string } | { type: 'interval'; value: number; unit: IntervalUnit };
export type IntervalUnit = 'minute' | 'hour' | 'day';
