// Items dated before the first day their signal's retention keeps would be acknowledged and then
// never seen: the retention job deletes them at its next run, and reads skip them until then.
// The validation rejects them instead, with the reason. The cut is the retention job's own
// (firstKeptDay: whole UTC days, today counting as one).

const DAY_MS = 24 * 3600 * 1000;

/** The first day that is kept: today (UTC) minus `days` - 1. */
export function firstKeptDay(days: number, now = Date.now()): string {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return new Date(today - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

export class RetentionWindow {
  private today = Number.NaN;
  private firstDay = '';
  private firstMillis = 0;

  constructor(
    private readonly signal: 'events' | 'traces' | 'replays',
    /** `service.retention.<signal>_days`. */
    readonly days: number,
  ) {}

  /** Why an item dated `millis` (epoch ms) and received at `now` is past retention, or undefined when it is kept. */
  expired(millis: number, now: number): string | undefined {
    const today = Math.floor(now / DAY_MS);
    if (today !== this.today) {
      this.today = today;
      this.firstDay = firstKeptDay(this.days, now);
      this.firstMillis = Date.parse(this.firstDay);
    }
    if (millis >= this.firstMillis) return undefined;
    return `is before ${this.firstDay}, the first day kept: ${this.signal} are kept ${this.days} days (service.retention.${this.signal}_days), so it would be deleted at once`;
  }
}
