// A token bucket per API key: `rate` requests per second on average, `burst` at once.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {}

  get enabled(): boolean {
    return this.rate > 0;
  }

  /** 0 when the request may pass, else the seconds to wait before retrying. */
  take(key: string, now = Date.now()): number {
    if (!this.enabled) return 0;
    const capacity = Math.max(1, this.burst || this.rate);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
  }
}
