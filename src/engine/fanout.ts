// The consumer a receiver gets for one signal: fan-out to every pipeline that lists the receiver.
import type { Consumer } from './component.js';
import type { Item } from './item.js';
import type { Pipeline } from './pipeline.js';

/**
 * Room held in the pipelines' in-flight budgets for one request, from before its body is read
 * until its items are settled: concurrent uploads are bounded while they are read and parsed, not
 * only once their items are admitted.
 */
export interface Reservation {
  /** Takes items against the reservation: only their count is admitted, their bytes are held already. */
  readonly consumer: Consumer;
  /** Holds `bytes` in all if it holds fewer; throws OverloadedError (taking nothing) past the budget. */
  growTo(bytes: number): void;
  /** Gives the bytes back; once is enough, more is harmless. */
  release(): void;
}

/** A consumer that can hold room before it has items (FanOutConsumer does). */
export interface ReservingConsumer extends Consumer {
  reserve(count: number, bytes: number): Reservation;
}

/**
 * Holds `bytes` for a request that will hand `count` or more items to `consumer`; throws
 * OverloadedError or ShuttingDownError (taking nothing) as consume would. A consumer that cannot
 * hold room is asked with assertRoom, and its items are admitted when consumed.
 */
export function reserve(consumer: Consumer, count: number, bytes: number): Reservation {
  if ('reserve' in consumer && typeof consumer.reserve === 'function') return (consumer as ReservingConsumer).reserve(count, bytes);
  consumer.assertRoom(count, bytes);
  return { consumer, growTo: () => undefined, release: () => undefined };
}

export class FanOutConsumer implements ReservingConsumer {
  constructor(private readonly pipelines: Pipeline[]) {}

  assertRoom(count: number, bytes: number): void {
    for (const pipeline of this.pipelines) pipeline.assertRoom(count, bytes);
  }

  reserve(count: number, bytes: number): Reservation {
    this.takeAll(
      (pipeline) => pipeline.reserve(count, bytes),
      (pipeline) => pipeline.release(0, bytes),
    );
    return new HeldRoom(this, bytes);
  }

  consume(items: Item[]): Promise<void> {
    return this.consumeWithin(
      items,
      items.reduce((sum, item) => sum + item.size, 0),
      0,
    );
  }

  /** Takes room in every pipeline or in none: when one refuses, `undo` gives back what the others took, and the refusal is thrown. */
  takeAll(take: (pipeline: Pipeline) => void, undo: (pipeline: Pipeline) => void): void {
    const taken: Pipeline[] = [];
    try {
      for (const pipeline of this.pipelines) {
        take(pipeline);
        taken.push(pipeline);
      }
    } catch (error) {
      for (const pipeline of taken) undo(pipeline);
      throw error;
    }
  }

  /** Gives back `bytes` held by a reservation in every pipeline. */
  releaseHeld(bytes: number): void {
    for (const pipeline of this.pipelines) pipeline.release(0, bytes);
  }

  /** Admits the items, taking `bytes` besides the `held` bytes of a reservation, and runs them. */
  async consumeWithin(items: Item[], bytes: number, held: number): Promise<void> {
    this.takeAll(
      (pipeline) => pipeline.admit(items.length, bytes, held),
      (pipeline) => pipeline.release(items.length, bytes),
    );
    try {
      if (this.pipelines.length === 1) {
        await this.pipelines[0].run(items);
        return;
      }
      // Processors change items in place, so every pipeline but the first works on its own copy.
      // The first keeps the receiver's items: their outcome and data are what the sender is told.
      const copies = this.pipelines.slice(1).map(() => items.map((item) => ({ ...item, data: structuredClone(item.data) })));
      await Promise.all([this.pipelines[0].run(items), ...this.pipelines.slice(1).map((p, i) => p.run(copies[i]))]);
      items.forEach((item, index) => {
        const outcomes = [item.outcome, ...copies.map((copy) => copy[index].outcome)];
        const rejected = outcomes.find((outcome) => outcome?.kind === 'rejected');
        if (rejected) item.outcome = rejected;
        else if (outcomes.includes(undefined)) item.outcome = undefined; // dropped only if every pipeline dropped it
      });
    } finally {
      for (const pipeline of this.pipelines) pipeline.release(items.length, bytes);
    }
  }
}

/** A FanOutConsumer's reservation: the same bytes held in each of its pipelines. */
class HeldRoom implements Reservation {
  readonly consumer: Consumer;
  private released = false;

  constructor(
    private readonly fanOut: FanOutConsumer,
    private bytes: number,
  ) {
    this.consumer = {
      consume: (items) => this.fanOut.consumeWithin(items, 0, this.bytes),
      assertRoom: (count, bytes) => this.fanOut.assertRoom(count, bytes),
    };
  }

  growTo(bytes: number): void {
    const extra = bytes - this.bytes;
    if (extra <= 0 || this.released) return;
    this.fanOut.takeAll(
      (pipeline) => pipeline.admit(0, extra, this.bytes),
      (pipeline) => pipeline.release(0, extra),
    );
    this.bytes = bytes;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.fanOut.releaseHeld(this.bytes);
  }
}
