// Standalone micro-measure of the per-span stages of an OTLP protobuf request (issue #30): the
// decode, the traces validation, the scrubbing (default options) and the span batch document
// (made and encoded to UTF-8 as the DocStore's put does),
// each timed in CPU µs per span on the bench's requests of 1,000 spans, in this process, without
// the HTTP server, the pipeline's plumbing or DuckDB. It points at the stage to work on; the
// service's figure is spans-bulk's.
// With `--allocations` (run as `node --expose-gc --max-semi-space-size=256 ...`), the bytes each
// stage leaves on the heap per span instead, from a heap emptied by gc() before each request.
// Run: `npx tsc -p bench/tsconfig.json && node dist/bench/micro/span-stages.js [--rounds 40]`.
// A busy machine makes the figures noisy: compare medians of runs taken close together.
import { parseArgs } from 'node:util';
import { scrubbingConfigSchema } from '../../processors/scrubbing/config.js';
import { ScrubbingProcessor } from '../../processors/scrubbing/processor.js';
import { toSpanBatches } from '../../exporters/duckdb/span-batch.js';
import type { Item } from '../../src/engine/item.js';
import { decodeTraceRequestProtobuf } from '../../src/otlp/decode/protobuf.js';
import { SpanValidationProcessor } from '../../src/records/span-validation/processor.js';
import { SPAN_LIMIT_DEFAULTS } from '../../src/records/span-validation/validate-span.js';
import type { Span } from '../../src/records/span.js';
import { SpanPayloads } from '../payloads.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '40' }, size: { type: 'string', default: '1000' }, allocations: { type: 'boolean', default: false } },
});
const ROUNDS = Number(values.rounds);
const SIZE = Number(values.size);
const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;

const payloads = new SpanPayloads(SIZE, 4);
const bodies = Array.from({ length: 8 }, () => Buffer.from(payloads.nextBody()));
const validation = new SpanValidationProcessor(SPAN_LIMIT_DEFAULTS);
const scrubbing = new ScrubbingProcessor('traces', scrubbingConfigSchema.parse({}), undefined);

const stages = ['decode', 'validate', 'scrub', 'document'] as const;
const totals = new Map<string, number[]>(stages.map((s) => [s, []]));

const gc = (globalThis as { gc?: () => void }).gc;
if (values.allocations && !gc) throw new Error('--allocations needs node --expose-gc');

function cpu(): number {
  if (values.allocations) return process.memoryUsage().heapUsed;
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function round(body: Buffer): Promise<void> {
  if (values.allocations) gc?.();
  let t = cpu();
  const lap = (stage: (typeof stages)[number], spans: number) => {
    const now = cpu();
    totals.get(stage)!.push((now - t) / spans);
    t = now;
  };
  const request = decodeTraceRequestProtobuf(body);
  const items: Item[] = [];
  const receivedAt = Date.now();
  for (const resource of request.resourceSpans) for (const span of resource.spans) items.push({ data: span, tenant: TENANT, receivedAt, size: 512 });
  lap('decode', items.length);
  validation.process(items);
  lap('validate', items.length);
  await scrubbing.process(items);
  lap('scrub', items.length);
  const batches = toSpanBatches(items as Item<Span>[]);
  const doc = batches[0].data.doc ?? '';
  if (typeof doc === 'string') Buffer.from(doc); // the DocStore's put encodes a document made as text (flattening the string first)
  lap('document', items.length);
}

for (let i = 0; i < 10; i++) await round(bodies[i % bodies.length]); // warm-up
for (const stage of stages) totals.get(stage)!.length = 0;
for (let i = 0; i < ROUNDS; i++) await round(bodies[i % bodies.length]);

const unit = values.allocations ? 'bytes' : 'µs';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let sum = 0;
for (const stage of stages) {
  const m = median(totals.get(stage)!);
  sum += m;
  console.log(`${stage.padEnd(9)} ${m.toFixed(2)} ${unit}/span`);
}
console.log(`${'total'.padEnd(9)} ${sum.toFixed(2)} ${unit}/span (medians, ${ROUNDS} requests of ${SIZE} spans)`);
