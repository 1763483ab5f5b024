// Standalone micro-measure of the Sentry envelope route's own work on one event (issue #30): what
// POST /api/<project>/envelope/ does beyond what POST /v1/events does, on the bench's envelopes of
// one SDK-like event (bench/payloads.ts sdkEventSets, `envelope1`). Cumulative steps: the envelope
// read (parseEnvelope), its item's JSON parsed, the payload mapped to the ingest body
// (mapSentryEvent), and that body serialized as the store does (event-body.ts). CPU µs per event of
// each step alone (the previous steps taken off), the median of the rounds.
// Run: `npx tsc -p bench/tsconfig.json && node dist/bench/micro/sentry-envelope.js`. To compare two
// builds, run the compiled file from each (it imports the modules of the tree it is in), interleaved.
import { parseEnvelope, parseJsonPayload } from '../../receivers/http-api/sentry/envelope.js';
import { mapSentryEvent } from '../../receivers/http-api/sentry/event.js';
import { sdkEventSets } from '../payloads.js';
import { median } from '../stats.js';

const EVENTS = 600;
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const RECEIVED_AT = Date.now();

const steps = {
  envelope: (body: Buffer) => parseEnvelope(body).items[0],
  parse: (body: Buffer) => payloadOf(body),
  map: (body: Buffer) => mapped(body),
  serialize: (body: Buffer) => JSON.stringify(mapped(body)),
};
type Step = keyof typeof steps;

function payloadOf(body: Buffer) {
  const envelope = parseEnvelope(body);
  const parsed = parseJsonPayload(envelope.items[0].payload);
  if (!parsed.ok) throw new Error(parsed.reason);
  return { payload: parsed.value, eventId: envelope.header.event_id as string };
}

function mapped(body: Buffer) {
  const { payload, eventId } = payloadOf(body);
  const result = mapSentryEvent(payload, RECEIVED_AT, eventId);
  if (!result.ok) throw new Error(result.reason);
  return result.body;
}

/** CPU µs per event of running `step` (and the steps before it) on each body. */
function cpuPerEvent(step: Step, bodies: Buffer[]): number {
  const run = steps[step];
  const cpu0 = process.cpuUsage();
  for (const body of bodies) run(body);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / bodies.length;
}

function main(): void {
  const sets = sdkEventSets(EVENTS);
  const bodies = Array.from({ length: EVENTS }, () => sets.envelope1.nextBody());
  const names = Object.keys(steps) as Step[];
  for (let warm = 0; warm < 5; warm++) for (const step of names) cpuPerEvent(step, bodies);
  const cpu = new Map<Step, number[]>(names.map((step) => [step, []]));
  for (let round = 0; round < ROUNDS; round++) {
    let before = 0;
    for (const step of names) {
      const total = cpuPerEvent(step, bodies);
      cpu.get(step)?.push(total - before);
      before = total;
    }
  }
  const meanBytes = bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length;
  console.log(`${EVENTS} envelopes of one SDK-like event, mean ${Math.round(meanBytes)} B; ${ROUNDS} rounds; CPU µs per event, median (each step alone)`);
  let sum = 0;
  for (const step of names) {
    const rounds = cpu.get(step) ?? [];
    sum += median(rounds);
    console.log(`${step.padEnd(10)} ${median(rounds).toFixed(1).padStart(7)}  (rounds ${Math.min(...rounds).toFixed(1)} to ${Math.max(...rounds).toFixed(1)})`);
  }
  console.log(`${'all'.padEnd(10)} ${sum.toFixed(1).padStart(7)}`);
}

main();
