// The DocStore's group commit (exporters/duckdb/commit-linger.ts): when the synced commit runs.
// The policy on its own with a counting commit, then the real DocStore over a real LMDB
// environment, whose transaction id counts the commits. Orderings are asserted with event-loop
// phases (an immediate always runs before a timer set in the same turn), not with the clock; the
// linger is long (a second) where a test needs requests to arrive within it, so a loaded machine
// cannot make one arrive late.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitLinger, DEFAULT_LINGER } from '../../exporters/duckdb/commit-linger.js';
import { duckdbConfigSchema } from '../../exporters/duckdb/config.js';
import { DocStore } from '../../exporters/duckdb/docs.js';
import { tempDir } from '../support/service.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CommitLinger', () => {
  it('commits at the end of the turn when requests are far apart, and lingers once they come close together', async () => {
    let commits = 0;
    const linger = new CommitLinger(() => commits++, { ...DEFAULT_LINGER, lingerMs: 1000 });
    linger.joined(1, 100);
    await nextTurn();
    expect(commits).toBe(1); // the first request of an idle store does not wait

    linger.joined(1, 100); // right after the first: requests now arrive close together
    await nextTurn();
    expect(commits).toBe(1); // so this one waits for others
    for (let i = 0; i < 5; i++) {
      linger.joined(1, 100);
      await nextTurn();
    }
    expect(commits).toBe(1);
    linger.flush();
    expect(commits).toBe(2); // all six in one commit
  });

  it('commits at once when the waiting items or bytes reach their bound', async () => {
    let commits = 0;
    const linger = new CommitLinger(() => commits++, { lingerMs: 1000, maxItems: 3, maxBytes: 1000 });
    linger.joined(1, 10);
    await nextTurn();
    linger.joined(1, 10); // lingers
    linger.joined(1, 10);
    await nextTurn();
    expect(commits).toBe(1);
    linger.joined(1, 10); // the third waiting item
    await nextTurn();
    expect(commits).toBe(2);
    linger.joined(1, 10);
    await nextTurn();
    expect(commits).toBe(2);
    linger.joined(1, 2000); // past the byte bound
    await nextTurn();
    expect(commits).toBe(3);
    linger.flush();
    expect(commits).toBe(3); // nothing left waiting
  });

  it('with a linger of 0, only what is handed in during one turn shares a commit', async () => {
    let commits = 0;
    const linger = new CommitLinger(() => commits++, { ...DEFAULT_LINGER, lingerMs: 0 });
    for (let i = 0; i < 4; i++) {
      linger.joined(1, 10);
      linger.joined(1, 10);
      await nextTurn();
    }
    expect(commits).toBe(4);
  });
});

describe('DocStore group commit', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function putInTurns(lingerMs: number, count: number): Promise<{ commits: number; resolvedEarly: number }> {
    const dir = tempDir('faultline-linger-');
    dirs.push(dir);
    const docs = DocStore.open(dir, { ...DEFAULT_LINGER, lingerMs });
    const before = docs.lastTransactionId();
    const puts: Array<Promise<void>> = [];
    let resolved = 0;
    for (let i = 0; i < count; i++) {
      const id = `e${i}`;
      puts.push(
        docs
          .put([{ kind: 'events', key: ['live', 'p1', id], doc: `{"id":"${id}"}` }], { kind: 'events', id, value: '{"items":[]}' })
          .then(() => void resolved++),
      );
      await nextTurn(); // each request in a turn of its own, as requests on different connections
    }
    const resolvedEarly = resolved;
    await Promise.all(puts);
    for (let i = 0; i < count; i++) expect(docs.get('events', ['live', 'p1', `e${i}`])).toBe(`{"id":"e${i}"}`);
    expect(docs.allPending('events')).toHaveLength(count);
    const commits = docs.lastTransactionId() - before;
    await docs.close();
    return { commits, resolvedEarly };
  }

  it('requests of separate turns share one synced commit while they come close together, and none resolves before it', async () => {
    const { commits, resolvedEarly } = await putInTurns(1000, 12);
    // The first commits alone (the store was idle); the other eleven wait for one commit together.
    expect(commits).toBe(2);
    expect(resolvedEarly).toBe(1);
  });

  it('without a linger, each turn commits on its own', async () => {
    const { commits, resolvedEarly } = await putInTurns(0, 12);
    expect(commits).toBe(12);
    expect(resolvedEarly).toBe(12);
  });
});

describe('durability.linger_ms', () => {
  it('defaults to the measured linger and takes 0 to 100 ms', () => {
    expect(duckdbConfigSchema.parse({}).durability.linger_ms).toBe(DEFAULT_LINGER.lingerMs);
    expect(duckdbConfigSchema.parse({ durability: { linger_ms: 0 } }).durability.linger_ms).toBe(0);
    expect(duckdbConfigSchema.safeParse({ durability: { linger_ms: -1 } }).success).toBe(false);
    expect(duckdbConfigSchema.safeParse({ durability: { linger_ms: 1000 } }).success).toBe(false);
    expect(duckdbConfigSchema.safeParse({ durability: { lingr_ms: 2 } }).success).toBe(false);
  });
});
