// Standalone micro-measure of issue #30's "parse once": the validation processor on the bench's
// SDK-like events (bench/payloads.ts sdkEventSets, as POST /v1/events receives them), each body
// parsed beforehand (the receiver's work, not measured). Two ways, interleaved round by round:
// `copy`, an item without its received bytes, which validation builds anew (the compiled
// accept-path's copy mode, what every event took before); `reuse`, an item as the events route
// leaves it, which validation makes of the body's own objects. For each: CPU µs and bytes allocated
// per event, of validateEvent alone and of the whole processor (validateEvent, the release, the
// pipeline fields, the received body's mark). The median of the rounds is printed.
// Run: `npx tsc -p bench/tsconfig.json && node --expose-gc --max-semi-space-size=64 dist/bench/micro/validation-in-place.js`.
// A busy machine makes the figures noisy; the rounds are interleaved so that both ways share it.
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import { validateEvent } from '../../processors/validation/validate.js';
import type { Item } from '../../src/engine/item.js';
import { keepReceivedBody } from '../../src/records/event-body.js';
import { sdkEventSets } from '../payloads.js';

const EVENTS = 600;
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const CHUNK = 50;
const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;
const config = validationConfigSchema.parse({});
const processor = new EventValidationProcessor(config);
const gc = (globalThis as { gc?: () => void }).gc;

type Way = 'copy' | 'reuse';
const WAYS: Way[] = ['copy', 'reuse'];

/** The items of one round: each body parsed anew (validation may change it), with its bytes for `reuse`. */
function itemsOf(bodies: Buffer[], way: Way): Item[] {
  return bodies.map((bytes) => {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return { data: way === 'reuse' ? keepReceivedBody(parsed, bytes) : parsed, tenant: TENANT, receivedAt: Date.now(), size: bytes.length };
  });
}

const steps = {
  validateEvent: (items: Item[], way: Way) => {
    for (const item of items) if (!validateEvent(item.data, config, way === 'reuse').ok) throw new Error('a bench event was rejected');
  },
  processor: (items: Item[]) => {
    processor.process(items);
    if (items.some((item) => item.outcome !== undefined)) throw new Error('a bench event was rejected');
  },
};
type Step = keyof typeof steps;

/** CPU µs per event of `step` over one round's items. */
function cpuPerEvent(step: Step, bodies: Buffer[], way: Way): number {
  const items = itemsOf(bodies, way);
  const cpu0 = process.cpuUsage();
  steps[step](items, way);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / items.length;
}

/**
 * Bytes allocated per event: the heap's growth over a chunk of events from a collected heap, the
 * largest over the chunks (a collection during a chunk only makes its growth smaller).
 */
function allocatedPerEvent(step: Step, bodies: Buffer[], way: Way): number {
  let allocated = 0;
  for (let start = 0; gc && start + CHUNK <= bodies.length; start += CHUNK) {
    const items = itemsOf(bodies.slice(start, start + CHUNK), way);
    gc();
    const before = process.memoryUsage().heapUsed;
    steps[step](items, way);
    allocated = Math.max(allocated, process.memoryUsage().heapUsed - before);
  }
  return allocated / CHUNK;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function main(): void {
  const sets = sdkEventSets(EVENTS);
  const bodies = Array.from({ length: EVENTS }, () => sets.single.nextBody());
  const meanBytes = bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length;
  for (const step of Object.keys(steps) as Step[]) for (const way of WAYS) for (let warm = 0; warm < 3; warm++) cpuPerEvent(step, bodies, way);
  console.log(`${EVENTS} SDK-like events, mean body ${Math.round(meanBytes)} B; ${ROUNDS} rounds, interleaved; medians`);
  if (!gc) console.log('bytes allocated need --expose-gc (and --max-semi-space-size=64): shown as 0');
  for (const step of Object.keys(steps) as Step[]) {
    const cpu: Record<Way, number[]> = { copy: [], reuse: [] };
    for (let round = 0; round < ROUNDS; round++) for (const way of round % 2 === 0 ? WAYS : [...WAYS].reverse()) cpu[way].push(cpuPerEvent(step, bodies, way));
    for (const way of WAYS) {
      const allocated = allocatedPerEvent(step, bodies, way);
      const spread = `${Math.min(...cpu[way]).toFixed(1)}-${Math.max(...cpu[way]).toFixed(1)}`;
      console.log(
        `${`${step}, ${way}`.padEnd(24)} ${median(cpu[way]).toFixed(1).padStart(7)} µs CPU (rounds ${spread})  ${Math.round(allocated).toString().padStart(7)} B allocated`,
      );
    }
  }
}

main();
