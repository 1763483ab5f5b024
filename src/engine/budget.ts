import { OverloadedError } from './errors.js';

export interface BudgetLimits {
  items: number;
  bytes: number;
}

/**
 * The bounded in-flight budget of one pipeline. Receivers take from it before handing items in and
 * give back once the items are settled; past the budget they refuse, so memory stays bounded.
 */
export class InFlightBudget {
  items = 0;
  bytes = 0;

  constructor(
    readonly pipeline: string,
    readonly limits: BudgetLimits,
  ) {}

  /** Takes the whole batch or nothing. A batch larger than the whole budget still passes when idle. */
  tryAcquire(items: number, bytes: number): boolean {
    if (!this.hasRoom(items, bytes)) return false;
    this.items += items;
    this.bytes += bytes;
    return true;
  }

  /** Whether tryAcquire would take the batch now (nothing is taken). */
  hasRoom(items: number, bytes: number): boolean {
    return this.items === 0 || (this.items + items <= this.limits.items && this.bytes + bytes <= this.limits.bytes);
  }

  acquire(items: number, bytes: number): void {
    if (!this.tryAcquire(items, bytes)) throw new OverloadedError(this.pipeline);
  }

  release(items: number, bytes: number): void {
    this.items -= items;
    this.bytes -= bytes;
  }
}
