// The scrubbing processor's cost on the hot path, in process: CPU per event of its process() on
// the bench's validated events (200 errors x 3 releases), each scrubbed fresh (a copy per pass,
// made before the clock starts: scrubbing changes an event once), with the default rules, with
// every option and custom rules on, and on the same events carrying secrets in headers, extra,
// breadcrumbs and the message. Without the processor the cost is 0: the rows are the difference.
import type { Item } from '../src/engine/item.js';
import { SCRUBBING_DEFAULTS, type ScrubbingOptions } from '../src/records/data-scrubbing.js';
import type { ErrorEvent } from '../src/records/event.js';
import { ScrubbingProcessor } from '../processors/scrubbing/processor.js';
import { validationConfigSchema } from '../processors/validation/config.js';
import { EventValidationProcessor } from '../processors/validation/processor.js';
import { errorTemplates, eventBody, RELEASES, rng } from './payloads.js';

export interface ScrubbingCase {
  label: string;
  cpuMicrosPerEvent: number;
}

export interface ScrubbingResult {
  events: number;
  /** The loop with nothing done to the copies: what each case's figure includes besides scrubbing. */
  baselineCpuMicrosPerEvent: number;
  /** Mean size of the events as stored (JSON). */
  meanEventBytes: number;
  cases: ScrubbingCase[];
}

const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;

function validated(withSecrets: boolean): ErrorEvent[] {
  const validation = new EventValidationProcessor(validationConfigSchema.parse({}));
  const random = rng(29);
  const out: ErrorEvent[] = [];
  for (const template of errorTemplates()) {
    RELEASES.forEach((_, r) => {
      const body = eventBody(template, r, random);
      if (withSecrets) {
        body.message = 'payment failed for card 4111 1111 1111 1111, Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln';
        body.request = {
          url: 'https://shop.example/pay?api_key=k-123&step=2',
          headers: { Authorization: 'Bearer abcdefghijkl', Cookie: 'sid=1', 'User-Agent': 'Mozilla/5.0' },
          data: { password: 'hunter2', amount: 12 },
        };
        body.contexts = { ...(body.contexts as object), extra: { session_id: 's-1', order: 77 } };
      }
      const item: Item = { data: body, tenant: TENANT, receivedAt: Date.now(), size: 0 };
      validation.process([item]);
      if (item.outcome === undefined) out.push(item.data as ErrorEvent);
    });
  }
  return out;
}

/** `options` undefined: the same loop over the same copies with nothing done to them (the copies' own cost, mostly GC). */
async function cpuPerEvent(events: ErrorEvent[], seconds: number, options: ScrubbingOptions | undefined): Promise<number> {
  const processor = options ? new ScrubbingProcessor('events', options, { project: async () => undefined }) : { process: async (_items: Item[]) => undefined };
  const batches = (copies: number) =>
    Array.from({ length: copies }, () => events.map((event): Item => ({ data: structuredClone(event), tenant: TENANT, receivedAt: 0, size: 0 })));
  for (const batch of batches(2)) await processor.process(batch); // warm the JIT
  let cpu = 0;
  let n = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const work = batches(5);
    const cpu0 = process.cpuUsage();
    for (const batch of work) await processor.process(batch);
    const used = process.cpuUsage(cpu0);
    cpu += used.user + used.system;
    n += work.length * events.length;
  }
  return cpu / n;
}

export async function measureScrubbing(options: { seconds: number }): Promise<ScrubbingResult> {
  const plain = validated(false);
  const secrets = validated(true);
  const everything: ScrubbingOptions = {
    ...SCRUBBING_DEFAULTS,
    scrub_ip: true,
    scrub_email: true,
    sensitive_fields: ['iban', 'phone'],
    rules: [
      { selector: '$string', pattern: 'cust-[0-9]{6}', method: 'mask' },
      { selector: 'request.headers.x-customer-id', method: 'hash' },
    ],
  };
  const cases: Array<[string, ErrorEvent[], ScrubbingOptions]> = [
    ['default rules', plain, SCRUBBING_DEFAULTS],
    ['default rules, events with secrets to replace', secrets, SCRUBBING_DEFAULTS],
    ['every option and 2 custom rules (one RE2 pattern over every string)', plain, everything],
  ];
  const baselineCpuMicrosPerEvent = await cpuPerEvent(plain, options.seconds, undefined);
  const out: ScrubbingCase[] = [];
  for (const [label, events, settings] of cases) out.push({ label, cpuMicrosPerEvent: await cpuPerEvent(events, options.seconds, settings) });
  const meanEventBytes = plain.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)), 0) / plain.length;
  return { events: plain.length, baselineCpuMicrosPerEvent, meanEventBytes, cases: out };
}
