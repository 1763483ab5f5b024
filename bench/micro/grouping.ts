// Micro-measure of the grouping processor's CPU per event (issue #30, round three): the bench's
// SDK events (200 errors over 3 releases, 20-25 frames, about half in-app) through the real
// validation processor, then grouped by the processor as it is and, with --before DIR, by
// another build's (DIR/processors/grouping/processor.js, e.g. the dist/ of the commit before,
// from `git archive`), in interleaved rounds (A, B, A, B…); each round groups fresh copies of the
// events (a request's objects are new, only their strings repeat), the copies made outside the measure.
//
//   npx tsc -p bench/tsconfig.json && node --expose-gc dist/bench/micro/grouping.js [--events 4000] [--rounds 9] [--rules] [--before DIR]
//
// --rules adds the bench's grouping rules (bench/config-variants.ts). --distinct groups 200 events of 250 frames
// never seen before each (every frame a miss of the memories: the hostile case) instead. Figures are the main thread's
// CPU time (Linux schedstat); a busy machine makes them noisy: compare the medians of one run.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compileRules } from '../../processors/grouping/compile-rules.js';
import { groupingConfigSchema } from '../../processors/grouping/config.js';
import { GroupingProcessor } from '../../processors/grouping/processor.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import type { Item } from '../../src/engine/item.js';
import { keepReceivedBody } from '../../src/records/event-body.js';
import { GROUPING_RULES } from '../config-variants.js';
import { sdkEventSets } from '../payloads.js';
import { median } from '../stats.js';
import { threadCpuMicros } from './measure.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '9' },
    rules: { type: 'boolean', default: false },
    before: { type: 'string' },
    distinct: { type: 'boolean', default: false },
  },
});

const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;
const CHUNK = 200;
/** With --expose-gc, the copies' garbage is collected before each measure, not inside it. */
const gc = (globalThis as { gc?: () => void }).gc;

/** The bench's SDK events as POST /v1/events makes items of them, validated. */
function validatedEvents(count: number): unknown[] {
  const bodies = sdkEventSets(count).single;
  const items: Item[] = Array.from({ length: count }, () => {
    const bytes = bodies.nextBody();
    return { data: keepReceivedBody(JSON.parse(bytes.toString('utf8')), bytes), tenant: TENANT, receivedAt: Date.now(), size: bytes.length };
  });
  new EventValidationProcessor(validationConfigSchema.parse({})).process(items);
  const live = items.filter((item) => item.outcome === undefined);
  if (live.length !== count) throw new Error(`validation kept ${live.length} of ${count} events`);
  return live.map((item) => item.data);
}

/** Events whose every frame is new (a function per event and frame), parsed from JSON as a receiver does. */
function distinctFrameEvents(): unknown[] {
  const events = Array.from({ length: 200 }, (_, i) => ({
    id: `e${i}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    platform: 'javascript',
    project_id: 'p',
    received_at: '2026-01-01T00:00:01.000Z',
    processing_errors: [],
    exception: {
      type: 'TypeError',
      value: 'x is undefined',
      stacktrace: Array.from({ length: 250 }, (_, k) => ({
        filename: `src/feature${k % 40}/module${k % 9}.tsx`,
        function: `handler${i}_${k}`,
        lineno: k,
        in_app: true,
      })),
    },
  }));
  return JSON.parse(JSON.stringify(events)) as unknown[];
}

interface Grouper {
  process(items: Item[]): void;
}

/** CPU µs per event of grouping fresh copies of every event once. */
function round(grouper: Grouper, events: readonly unknown[]): number {
  let micros = 0;
  for (let start = 0; start < events.length; start += CHUNK) {
    const items: Item[] = events.slice(start, start + CHUNK).map((data) => ({ data: structuredClone(data), tenant: TENANT, receivedAt: 0, size: 0 }));
    gc?.();
    const before = threadCpuMicros();
    grouper.process(items);
    micros += threadCpuMicros() - before;
  }
  return micros / events.length;
}

const config = groupingConfigSchema.parse(args.rules ? { rules: GROUPING_RULES } : {});
const rules = args.rules ? compileRules(config.rules) : undefined;
/** The processor of another build: its own modules, so its own name memories too. */
async function processorOf(dist: string): Promise<Grouper> {
  const { GroupingProcessor: Before } = (await import(resolve(dist, 'processors/grouping/processor.js'))) as { GroupingProcessor: typeof GroupingProcessor };
  return new Before(config, rules);
}

const groupers: Array<[string, Grouper]> = [
  ...(args.before === undefined ? [] : [['before (--before)', await processorOf(args.before)] as [string, Grouper]]),
  ['after (processor)', new GroupingProcessor(config, rules)],
];
const events = args.distinct ? distinctFrameEvents() : validatedEvents(Number(args.events));
for (const [, grouper] of groupers) round(grouper, events); // warm the JIT and the name memories
const figures = new Map<string, number[]>(groupers.map(([name]) => [name, []]));
for (let r = 0; r < Number(args.rounds); r++) for (const [name, grouper] of groupers) figures.get(name)?.push(round(grouper, events));

console.log(
  `${events.length} ${args.distinct ? 'events of 250 distinct frames' : 'bench SDK events'}${args.rules ? ', with the bench grouping rules' : ''}; CPU µs per event, ${args.rounds} interleaved rounds`,
);
for (const [name, values] of figures)
  console.log(
    `${name.padEnd(20)} median ${median(values).toFixed(1).padStart(6)}  min ${Math.min(...values)
      .toFixed(1)
      .padStart(6)}  max ${Math.max(...values)
      .toFixed(1)
      .padStart(6)}`,
  );
