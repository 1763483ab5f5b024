// Standalone micro-measure of issue #30's "parse once": the validation processor on the bench's
// SDK-like events (bench/payloads.ts sdkEventSets, as POST /v1/events receives them). Two ways,
// interleaved round by round: `copy`, an item without its received bytes, which validation builds
// anew (the compiled accept-path's copy mode, what every event took before); `reuse`, an item as
// the events route leaves it, which validation makes of the body's own objects. Each event is
// parsed right before it is validated, one item at a time, as the route does (so the body is young,
// as on the server); the parse alone is measured in the same round and taken off. For each step
// (validateEvent alone, the whole processor): CPU µs and bytes allocated per event; the median of
// the rounds is printed.
// Run: `npx tsc -p bench/tsconfig.json && node --expose-gc dist/bench/micro/validation-in-place.js`.
// A busy machine makes the figures noisy; the rounds are interleaved so that both ways share it.
import { getHeapSpaceStatistics } from 'node:v8';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import { validateEvent } from '../../processors/validation/validate.js';
import type { Item } from '../../src/engine/item.js';
import { keepReceivedBody } from '../../src/records/event-body.js';
import { sdkEventSets } from '../payloads.js';
import { median } from '../stats.js';

const EVENTS = 600;
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const CHUNK = 50;
const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;
const config = validationConfigSchema.parse({});
const processor = new EventValidationProcessor(config);
const gc = (globalThis as { gc?: () => void }).gc;

type Way = 'copy' | 'reuse';
const WAYS: Way[] = ['copy', 'reuse'];

/** The item the route makes of a body: parsed, with its bytes for `reuse`. */
function itemOf(bytes: Buffer, way: Way): Item {
  const parsed: unknown = JSON.parse(bytes.toString('utf8'));
  return { data: way === 'reuse' ? keepReceivedBody(parsed, bytes) : parsed, tenant: TENANT, receivedAt: Date.now(), size: bytes.length };
}

const steps = {
  /** The parse alone, taken off the others. */
  parse: () => undefined,
  validateEvent: (item: Item, way: Way) => {
    if (!validateEvent(item.data, config, way === 'reuse').ok) throw new Error('a bench event was rejected');
  },
  processor: (item: Item) => {
    processor.process([item]);
    if (item.outcome !== undefined) throw new Error('a bench event was rejected');
  },
};
type Step = keyof typeof steps;

/** CPU µs per event of parsing each body and running `step` on it. */
function cpuPerEvent(step: Step, bodies: Buffer[], way: Way): number {
  const run = steps[step];
  const cpu0 = process.cpuUsage();
  for (const bytes of bodies) run(itemOf(bytes, way), way);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / bodies.length;
}

/** Bytes in the young generation, where every small object is allocated. */
function youngBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_used_size ?? 0;
}

/**
 * Bytes allocated per event by parsing and `step`: the young generation's growth over a chunk of
 * events from a collected heap, the median of the chunks (a chunk with a collection in it, whose
 * growth is smaller, is left out).
 */
function allocatedPerEvent(step: Step, bodies: Buffer[], way: Way): number {
  const run = steps[step];
  const chunks: number[] = [];
  for (let start = 0; gc && start + CHUNK <= bodies.length; start += CHUNK) {
    gc();
    const before = youngBytes();
    for (let i = start; i < start + CHUNK; i++) run(itemOf(bodies[i], way), way);
    const grown = youngBytes() - before;
    if (grown > 0) chunks.push(grown / CHUNK);
  }
  return chunks.length > 0 ? median(chunks) : 0;
}

function main(): void {
  const sets = sdkEventSets(EVENTS);
  const bodies = Array.from({ length: EVENTS }, () => sets.single.nextBody());
  const meanBytes = bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length;
  const names = Object.keys(steps) as Step[];
  for (const step of names) for (const way of WAYS) for (let warm = 0; warm < 3; warm++) cpuPerEvent(step, bodies, way);
  // Per step and way, each round's figure less the parse's of the same round and way.
  const cpu = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of round % 2 === 0 ? WAYS : [...WAYS].reverse()) {
      const parse = cpuPerEvent('parse', bodies, way);
      for (const step of names.slice(1)) {
        const key = `${step}, ${way}`;
        cpu.set(key, [...(cpu.get(key) ?? []), cpuPerEvent(step, bodies, way) - parse]);
      }
      cpu.set(`parse, ${way}`, [...(cpu.get(`parse, ${way}`) ?? []), parse]);
    }
  }
  console.log(`${EVENTS} SDK-like events, mean body ${Math.round(meanBytes)} B; ${ROUNDS} rounds, interleaved; medians, the parse taken off`);
  if (!gc) console.log('bytes allocated need --expose-gc: shown as 0');
  for (const step of names) {
    for (const way of WAYS) {
      const rounds = cpu.get(`${step}, ${way}`) ?? [];
      const parseBytes = step === 'parse' ? 0 : allocatedPerEvent('parse', bodies, way);
      const allocated = allocatedPerEvent(step, bodies, way) - parseBytes;
      const spread = `${Math.min(...rounds).toFixed(1)} to ${Math.max(...rounds).toFixed(1)}`;
      console.log(
        `${`${step}, ${way}`.padEnd(24)} ${median(rounds).toFixed(1).padStart(7)} µs CPU (rounds ${spread})  ${Math.round(allocated).toString().padStart(7)} B allocated`,
      );
    }
  }
}

main();
