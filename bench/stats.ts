// Latency samples and percentiles (exact, over every sample: runs are short enough to keep them).
export class Samples {
  private values = new Float64Array(1024);
  private count = 0;

  add(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = value;
  }

  get size(): number {
    return this.count;
  }

  /** p in [0, 100]; NaN when empty. Nearest-rank. */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const sorted = this.values.slice(0, this.count).sort();
    const rank = Math.min(this.count - 1, Math.max(0, Math.ceil((p / 100) * this.count) - 1));
    return sorted[rank];
  }

  summary(): { p50: number; p99: number; max: number; n: number } {
    if (this.count === 0) return { p50: Number.NaN, p99: Number.NaN, max: Number.NaN, n: 0 };
    const sorted = this.values.slice(0, this.count).sort();
    const at = (p: number) => sorted[Math.min(this.count - 1, Math.max(0, Math.ceil((p / 100) * this.count) - 1))];
    return { p50: at(50), p99: at(99), max: sorted[this.count - 1], n: this.count };
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The median of the values (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
