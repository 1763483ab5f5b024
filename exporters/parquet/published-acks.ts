// `ack: lake`: an export resolves only once its rows are in a published lake file (fsynced and
// renamed, journaled done), not at the staging commit. A Kafka worker commits offsets when its
// export resolves, so an offset is committed only for rows every node can read: a worker whose
// machine is lost takes nothing acknowledged with it (its staged rows' offsets are uncommitted,
// and the partition's next owner reads them again).
//
// Flushes of a signal run one at a time, each claiming every row staged before its claim
// transaction. So rows staged before a waiter arrived are published once a flush whose claim ran
// after the waiter arrived has finished: waiters wait for claim number `claimed + 1`, and a flush
// that finishes (having redone any batch an earlier failed flush left pending) publishes every
// claim up to its own.
import type { LakeSignal } from './lake.js';

interface Waiter {
  claim: number;
  resolve: () => void;
}

export class PublishedAcks {
  private claimed = 0;
  private published = 0;
  private waiters: Waiter[] = [];
  private linger?: NodeJS.Timeout;

  constructor(
    readonly signal: LakeSignal,
    private readonly lingerMs: number,
    private readonly flush: () => void,
  ) {}

  /**
   * Resolves once every row staged before the call is in a published file. The first waiter
   * starts the linger: one flush `lingerMs` later publishes what every export staged meanwhile.
   */
  wait(): Promise<void> {
    const claim = this.claimed + 1;
    const done = new Promise<void>((resolve) => this.waiters.push({ claim, resolve }));
    this.linger ??= setTimeout(() => {
      this.linger = undefined;
      this.flush();
    }, this.lingerMs);
    return done;
  }

  /** Called inside a flush's claim transaction; the number of that claim. */
  claim(): number {
    return ++this.claimed;
  }

  /** A flush finished: every claim up to `claim` is published. */
  publishedUpTo(claim: number): void {
    if (claim <= this.published) return;
    this.published = claim;
    const ready = this.waiters.filter((w) => w.claim <= claim);
    this.waiters = this.waiters.filter((w) => w.claim > claim);
    for (const waiter of ready) waiter.resolve();
    // Exports that arrived while this flush ran wait for the next claim: start its linger.
    if (this.waiters.length && !this.linger) {
      this.linger = setTimeout(() => {
        this.linger = undefined;
        this.flush();
      }, this.lingerMs);
    }
  }

  /** Exports still waiting (a failed flush leaves them waiting for the retry). */
  get waiting(): number {
    return this.waiters.length;
  }

  stop(): void {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
  }
}
