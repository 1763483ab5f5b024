// Group commit: batches handed in while a commit is running wait and go together in the next
// one, so many concurrent requests share one transaction and nobody waits on a timer.
export class GroupCommit<T> {
  private pending: Array<{ items: T[]; resolve: () => void; reject: (error: unknown) => void }> = [];
  private running?: Promise<void>;

  constructor(
    private readonly commit: (items: T[]) => Promise<void>,
    private readonly maxItems: number,
  ) {}

  /** Resolves once the items are committed. */
  submit(items: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      this.running ??= this.loop().finally(() => (this.running = undefined));
    });
  }

  /** Resolves when everything submitted so far is committed (or failed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    while (this.pending.length) {
      const group = this.takeGroup();
      try {
        await this.commit(group.flatMap((entry) => entry.items));
        for (const entry of group) entry.resolve();
      } catch (error) {
        if (group.length === 1) group[0].reject(error);
        else await this.oneByOne(group); // one bad batch must not fail the others it shared a commit with
      }
    }
  }

  private async oneByOne(group: typeof this.pending): Promise<void> {
    for (const entry of group) {
      try {
        await this.commit(entry.items);
        entry.resolve();
      } catch (error) {
        entry.reject(error);
      }
    }
  }

  private takeGroup(): typeof this.pending {
    let count = 0;
    let take = 0;
    while (take < this.pending.length && (take === 0 || count + this.pending[take].items.length <= this.maxItems)) {
      count += this.pending[take].items.length;
      take++;
    }
    return this.pending.splice(0, take);
  }
}
