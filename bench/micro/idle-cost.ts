// Why an event costs about twice as much CPU at 25 % of capacity as at saturation (issue #30): the
// same work, done back to back and done with the process idle between items, as a lightly loaded
// service is. Each item is one of the bench's SDK events (~6 KB) parsed, validated and grouped by
// the real processors on the main thread, as POST /v1/events does before storing; CPU is the main
// thread's own (Linux schedstat). With idle gaps, the CPU of an empty wake-up (the timer and the
// event loop's poll, measured alone with the same gap) is subtracted, so what is left is what the
// work itself cost when it found the CPU cold (its caches and predictors taken by others while the
// thread slept; on a VM, the vCPU halted).
//
//   npx tsc -p bench/tsconfig.json && node dist/bench/micro/idle-cost.js [--items 1500] [--gaps 0.5,1,3] [--rounds 3]
//
// Read the ratio, not the absolute figures: a busy machine moves them.
import { parseArgs } from 'node:util';
import { groupingConfigSchema } from '../../processors/grouping/config.js';
import { GroupingProcessor } from '../../processors/grouping/processor.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import type { Item } from '../../src/engine/item.js';
import { keepReceivedBody } from '../../src/records/event-body.js';
import { sdkEventSets } from '../payloads.js';
import { median } from '../stats.js';
import { threadCpuMicros } from './measure.js';

const { values: args } = parseArgs({
  options: {
    items: { type: 'string', default: '1500' },
    gaps: { type: 'string', default: '0.5,1,3' },
    rounds: { type: 'string', default: '3' },
  },
});

const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;
const validation = new EventValidationProcessor(validationConfigSchema.parse({}));
const grouping = new GroupingProcessor(groupingConfigSchema.parse({}));
const source = sdkEventSets(2000).single;
const bodies = Array.from({ length: 2000 }, () => source.nextBody());

/** One event's work: parsed, validated and grouped, as the events route and pipeline do. */
function work(i: number): void {
  const bytes = bodies[i % bodies.length];
  const items: Item[] = [{ data: keepReceivedBody(JSON.parse(bytes.toString('utf8')), bytes), tenant: TENANT, receivedAt: Date.now(), size: bytes.length }];
  validation.process(items);
  grouping.process(items);
  if (items[0].outcome !== undefined) throw new Error('a bench event was refused');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** CPU µs per item: back to back (gap 0, a turn of the event loop every 50 items) or with a sleep after each. */
async function measure(items: number, gapMs: number, withWork: boolean): Promise<number> {
  const before = threadCpuMicros();
  for (let i = 0; i < items; i++) {
    if (withWork) work(i);
    if (gapMs > 0) await sleep(gapMs);
    else if (i % 50 === 0) await turn();
  }
  return (threadCpuMicros() - before) / items;
}

const items = Number(args.items);
const gaps = args.gaps.split(',').map(Number);
await measure(items, 0, true); // warm the JIT and grouping's memories
const hot: number[] = [];
const cold = new Map<number, number[]>(gaps.map((gap) => [gap, []]));
for (let r = 0; r < Number(args.rounds); r++) {
  hot.push(await measure(items * 2, 0, true));
  for (const gap of gaps) {
    const withWork = await measure(items, gap, true);
    const empty = await measure(items, gap, false);
    cold.get(gap)?.push(withWork - empty);
  }
}
const hotMedian = median(hot);
console.log(`${items} bench SDK events parsed, validated and grouped; main-thread CPU µs per event, median of ${args.rounds} interleaved rounds`);
console.log(`back to back          ${hotMedian.toFixed(1).padStart(6)}`);
for (const [gap, values] of cold)
  console.log(
    `idle ${String(gap).padStart(3)} ms after each ${median(values).toFixed(1).padStart(6)}  (${(median(values) / hotMedian).toFixed(2)}× back to back; the empty wake-up subtracted)`,
  );
