// Time-bucketed counters: what error_spike and latency rules measure. Adding an item is O(1) (a
// map increment); a window's sum visits its buckets (at most a few hundred), once per evaluation.

/** Counts per time bucket (bucket index = floor(epoch ms / bucketMs)). */
export class BucketCounts {
  private readonly counts = new Map<number, number>();

  constructor(readonly bucketMs: number) {}

  add(at: number, n = 1): void {
    const bucket = Math.floor(at / this.bucketMs);
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + n);
  }

  /** The count over [from, to): the buckets whose start lies in it. */
  sum(from: number, to: number): number {
    const first = Math.ceil(from / this.bucketMs);
    const last = Math.ceil(to / this.bucketMs);
    let total = 0;
    for (const [bucket, n] of this.counts) if (bucket >= first && bucket < last) total += n;
    return total;
  }

  /** Forgets buckets that start before `before`. */
  prune(before: number): void {
    const first = Math.ceil(before / this.bucketMs);
    for (const bucket of this.counts.keys()) if (bucket < first) this.counts.delete(bucket);
  }
}

/** Durations are binned on a log scale of base 1.01 over microseconds: a percentile is known within 1%. */
export const DURATION_LOG_STEP = Math.log(1.01);

/** The bin of a duration in microseconds (the query layer's WindowCounts.spanDurations bins stored spans alike). */
export function durationBin(micros: number): number {
  return micros <= 1 ? 0 : Math.ceil(Math.log(micros) / DURATION_LOG_STEP);
}

/** The upper bound of a bin, in milliseconds. */
function binUpperMs(bin: number): number {
  return bin === 0 ? 0.001 : Math.exp(bin * DURATION_LOG_STEP) / 1000;
}

/** Span durations per time bucket, as log-scale histograms. */
export class DurationBuckets {
  private readonly buckets = new Map<number, Map<number, number>>();

  constructor(readonly bucketMs: number) {}

  add(at: number, durationMicros: number): void {
    this.addBin(at, durationBin(durationMicros), 1);
  }

  addBin(at: number, bin: number, n: number): void {
    const bucket = Math.floor(at / this.bucketMs);
    let histogram = this.buckets.get(bucket);
    if (!histogram) this.buckets.set(bucket, (histogram = new Map()));
    histogram.set(bin, (histogram.get(bin) ?? 0) + n);
  }

  /**
   * The nearest-rank percentile over [from, to), in milliseconds (the upper bound of its bin: at
   * most 1% above the true value), and the number of samples it was taken from.
   */
  percentile(from: number, to: number, percentile: number): { value: number | null; samples: number } {
    const first = Math.ceil(from / this.bucketMs);
    const last = Math.ceil(to / this.bucketMs);
    const merged = new Map<number, number>();
    let samples = 0;
    for (const [bucket, histogram] of this.buckets) {
      if (bucket < first || bucket >= last) continue;
      for (const [bin, n] of histogram) {
        merged.set(bin, (merged.get(bin) ?? 0) + n);
        samples += n;
      }
    }
    if (samples === 0) return { value: null, samples };
    const rank = Math.max(1, Math.ceil((percentile / 100) * samples));
    let seen = 0;
    for (const bin of [...merged.keys()].sort((a, b) => a - b)) {
      seen += merged.get(bin) ?? 0;
      if (seen >= rank) return { value: binUpperMs(bin), samples };
    }
    return { value: null, samples };
  }

  prune(before: number): void {
    const first = Math.ceil(before / this.bucketMs);
    for (const bucket of this.buckets.keys()) if (bucket < first) this.buckets.delete(bucket);
  }
}
