// One pipeline: an ordered chain of processors over batches, fanning out to every exporter.
import type { Exporter, Processor } from './component.js';
import { InFlightBudget, type BudgetLimits } from './budget.js';
import { ExportError, OverloadedError, ShuttingDownError } from './errors.js';
import { isLive, type Item, type Signal } from './item.js';
import type { Metrics } from '../telemetry/metrics.js';

export interface NamedProcessor {
  id: string;
  processor: Processor;
}

export interface NamedExporter {
  id: string;
  exporter: Exporter;
}

export class Pipeline {
  readonly budget: InFlightBudget;
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly id: string,
    readonly signal: Signal,
    private readonly processors: NamedProcessor[],
    private readonly exporters: NamedExporter[],
    limits: BudgetLimits,
    private readonly metrics: Metrics,
  ) {
    this.budget = new InFlightBudget(id, limits);
  }

  /**
   * Reserves room for a batch; throws OverloadedError past the budget, ShuttingDownError while
   * draining. `held`: bytes the caller holds already by a reservation (see reserve).
   */
  admit(count: number, bytes: number, held = 0): void {
    if (this.draining) throw new ShuttingDownError();
    this.budget.acquire(count, bytes, held);
    this.updateGauges();
  }

  /**
   * Holds `bytes` for a request whose items are not read yet, if `count` items of `bytes` would be
   * admitted now; throws as admit does. Given back with release(0, bytes).
   */
  reserve(count: number, bytes: number): void {
    this.assertRoom(count, bytes);
    this.admit(0, bytes);
  }

  /** Throws as admit would, without taking anything. */
  assertRoom(count: number, bytes: number): void {
    if (this.draining) throw new ShuttingDownError();
    if (!this.budget.hasRoom(count, bytes)) throw new OverloadedError(this.id);
  }

  release(count: number, bytes: number): void {
    this.budget.release(count, bytes);
    this.updateGauges();
    if (this.budget.items === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Runs admitted items through the processors and exporters. Items end with their outcome set, or unset if accepted. */
  async run(items: Item[]): Promise<void> {
    let live = items.filter(isLive);
    for (const { id, processor } of this.processors) {
      if (live.length === 0) return;
      await processor.process(live);
      live = this.settle(id, live);
    }
    if (live.length === 0) return;
    await Promise.all(
      this.exporters.map(async ({ id, exporter }) => {
        try {
          await exporter.export(this.signal, live);
          this.metrics.exporterSent.inc({ exporter: id, signal: this.signal }, live.length);
        } catch (error) {
          this.metrics.exporterFailed.inc({ exporter: id, signal: this.signal }, live.length);
          // A connector's downstream pipeline refusing (over budget, draining) is a refusal for the
          // sender too, with the same retry advice; anything else is a failed export.
          if (error instanceof OverloadedError || error instanceof ShuttingDownError) throw error;
          throw new ExportError(id, error);
        }
      }),
    );
  }

  /** Stops admitting and waits until every admitted batch is settled. */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.budget.items === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Counts what a processor dropped or rejected and returns the items still live. */
  private settle(processorId: string, items: Item[]): Item[] {
    const live: Item[] = [];
    for (const item of items) {
      const outcome = item.outcome;
      if (!outcome) live.push(item);
      else if (outcome.kind === 'dropped')
        this.metrics.processorDropped.inc({ processor: processorId, pipeline: this.id, signal: this.signal, reason: outcome.reason });
      else this.metrics.processorRejected.inc({ processor: processorId, pipeline: this.id, signal: this.signal });
    }
    return live;
  }

  private updateGauges(): void {
    this.metrics.pipelineInFlightItems.set({ pipeline: this.id }, this.budget.items);
    this.metrics.pipelineInFlightBytes.set({ pipeline: this.id }, this.budget.bytes);
  }
}
