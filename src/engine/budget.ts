import { OverloadedError } from './errors.js';

export interface BudgetLimits {
  items: number;
  bytes: number;
}

/**
 * The bounded in-flight budget of one pipeline. Receivers take from it before handing items in and
 * give back once the items are settled; past the budget they refuse, so memory stays bounded.
 * Bytes are held either with items (consume) or ahead of them, by a reservation taken before a
 * request's body is read (see fanout.ts); a reservation's holder passes `held`, its own bytes,
 * so that they do not count against it as someone else's.
 */
export class InFlightBudget {
  items = 0;
  bytes = 0;

  constructor(
    readonly pipeline: string,
    readonly limits: BudgetLimits,
  ) {}

  /** Takes the whole batch or nothing. A batch larger than the whole budget still passes when nothing else is in flight. */
  tryAcquire(items: number, bytes: number, held = 0): boolean {
    if (!this.hasRoom(items, bytes, held)) return false;
    this.items += items;
    this.bytes += bytes;
    return true;
  }

  /** Whether tryAcquire would take the batch now (nothing is taken). */
  hasRoom(items: number, bytes: number, held = 0): boolean {
    const alone = this.items === 0 && this.bytes <= held;
    return alone || (this.items + items <= this.limits.items && this.bytes + bytes <= this.limits.bytes);
  }

  acquire(items: number, bytes: number, held = 0): void {
    if (!this.tryAcquire(items, bytes, held)) throw new OverloadedError(this.pipeline);
  }

  release(items: number, bytes: number): void {
    this.items -= items;
    this.bytes -= bytes;
  }
}
