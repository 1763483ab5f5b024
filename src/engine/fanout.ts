// The consumer a receiver gets for one signal: fan-out to every pipeline that lists the receiver.
import type { Consumer } from './component.js';
import type { Item } from './item.js';
import type { Pipeline } from './pipeline.js';

export class FanOutConsumer implements Consumer {
  constructor(private readonly pipelines: Pipeline[]) {}

  assertRoom(count: number, bytes: number): void {
    for (const pipeline of this.pipelines) pipeline.assertRoom(count, bytes);
  }

  async consume(items: Item[]): Promise<void> {
    const bytes = items.reduce((sum, item) => sum + item.size, 0);
    const admitted: Pipeline[] = [];
    try {
      for (const pipeline of this.pipelines) {
        pipeline.admit(items.length, bytes);
        admitted.push(pipeline);
      }
    } catch (error) {
      for (const pipeline of admitted) pipeline.release(items.length, bytes);
      throw error;
    }
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
