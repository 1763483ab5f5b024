// When the DocStore's synced commit runs: the group-commit policy. Every commit pays a fixed price
// (an fsync, the B-tree's copied branch pages, the meta page) whatever it holds, so the more
// requests share one, the less each pays. Requests handed in during one turn of the event loop
// always share one (setImmediate). Beyond that, while requests arrive closer together than the
// linger, the first of a group waits up to the linger for others to join it: at a moderate steady
// rate they then share one commit instead of paying one each. When they arrive further apart (an
// idle or lightly used service) nobody would join, so nothing waits. A group that reaches the item
// or byte bound commits at once.
import { performance } from 'node:perf_hooks';

export interface LingerPolicy {
  /** Longest a commit waits for more requests to join it (0: only those of the same turn share it). */
  lingerMs: number;
  /** Commit at once when this many entries wait. */
  maxItems: number;
  /** Commit at once when this many document bytes wait. */
  maxBytes: number;
  /** Linger whatever the rate (for comparison in bench/micro/group-commit.ts); by default only while requests come closer together than the linger. */
  always?: boolean;
}

export const DEFAULT_LINGER: LingerPolicy = { lingerMs: 2, maxItems: 256, maxBytes: 4 * 1024 * 1024 };

/** Weight of the newest gap between requests in their moving average. */
const GAP_WEIGHT = 0.2;
/** A longer pause counts as this long, so that a busy spell after a long idle one lingers after a few dozen requests. */
const MAX_GAP_MS = 1000;

export class CommitLinger {
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  private items = 0;
  private bytes = 0;
  private lastArrival = -Infinity;
  /** Moving average of the time between requests (ms): starts as if the service were idle. */
  private meanGapMs = Infinity;

  constructor(
    private readonly commit: () => void,
    private readonly policy: LingerPolicy,
  ) {}

  /** A request joined the next commit with `items` entries of `bytes` document bytes. */
  joined(items: number, bytes: number): void {
    const now = performance.now();
    const gap = Math.min(now - this.lastArrival, MAX_GAP_MS);
    this.lastArrival = now;
    this.meanGapMs = this.meanGapMs === Infinity ? gap : this.meanGapMs + GAP_WEIGHT * (gap - this.meanGapMs);
    this.items += items;
    this.bytes += bytes;
    if (this.immediate) return;
    const full = this.items >= this.policy.maxItems || this.bytes >= this.policy.maxBytes;
    if (this.timer && !full) return;
    if (!this.timer && !full && this.policy.lingerMs > 0 && (this.policy.always || this.meanGapMs < this.policy.lingerMs)) {
      this.timer = setTimeout(() => this.run(), this.policy.lingerMs);
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.immediate = setImmediate(() => this.run());
  }

  private run(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.items = 0;
    this.bytes = 0;
    this.commit();
  }

  /** Commits what waits now (at close). */
  flush(): void {
    if (this.timer || this.immediate) this.run();
  }
}
