// Issue #30, round three: the faster grouping gives every event exactly what the code before it
// gave: hash, components, basis, title, culprit, root cause, issue id and the in_app marks, over
// the bench's 4,000 SDK events, the labeled corpus, variants of the corpus that take the other
// paths (vendor paths, names past grouping's limits, frame platforms, instruction addresses,
// custom fingerprints), with and without grouping rules and other limits. As in
// frozen-versions.test.ts, the digests below were computed by the code before (commit ea1a5a4)
// over the same events; a result that changes for any one event changes its set's digest.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { labelEvents, readCorpus } from '../../bench/grouping-eval/evaluate.js';
import { GROUPING_RULES } from '../../bench/config-variants.js';
import { sdkEventSets } from '../../bench/payloads.js';
import { compileRules } from '../../processors/grouping/compile-rules.js';
import { groupingConfigSchema, type GroupingConfig } from '../../processors/grouping/config.js';
import { computeGrouping } from '../../processors/grouping/fingerprint.js';
import { GroupingProcessor } from '../../processors/grouping/processor.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { EventValidationProcessor } from '../../processors/validation/processor.js';
import type { Item } from '../../src/engine/item.js';
import type { ErrorEvent, ExceptionInfo, StackFrame } from '../../src/records/event.js';

const TENANT = { orgId: 'default', projectId: 'default', dataset: 'live' } as const;

/** The bench's SDK events as POST /v1/events makes items of them, validated. */
function benchEvents(): ErrorEvent[] {
  const bodies = sdkEventSets(4000).single;
  const items: Item[] = Array.from({ length: 4000 }, () => {
    const bytes = bodies.nextBody();
    return { data: JSON.parse(bytes.toString('utf8')) as unknown, tenant: TENANT, receivedAt: Date.now(), size: bytes.length };
  });
  new EventValidationProcessor(validationConfigSchema.parse({})).process(items);
  return items.filter((item) => item.outcome === undefined).map((item) => item.data as ErrorEvent);
}

function mapFrames(event: ErrorEvent, change: (frame: StackFrame, index: number) => StackFrame): ErrorEvent {
  const copy = structuredClone(event);
  for (let e: ExceptionInfo | undefined = copy.exception; e !== undefined; e = e.cause) e.stacktrace = e.stacktrace?.map(change);
  return copy;
}

const LONG = 'x'.repeat(1100);

/** Each corpus event changed so that grouping takes its other paths. */
function variants(event: ErrorEvent, n: number): ErrorEvent[] {
  return [
    mapFrames(event, (frame) => ({ ...frame, filename: frame.filename === undefined ? undefined : `node_modules/pkg/${frame.filename}`, in_app: true })),
    mapFrames(event, (frame, i) =>
      i % 2 ? { ...frame, abs_path: `/app/${LONG}/node_modules/x.js` } : { ...frame, function: `${frame.function ?? ''}${LONG}` },
    ),
    mapFrames(event, (frame, i) => ({ ...frame, platform: ['python', 'java', 'csharp', 'native', undefined][(i + n) % 5], in_app: i % 3 === 0 })),
    mapFrames(event, (frame, i) => ({ ...frame, instruction_addr: i % 2 ? '0x1a2b' : undefined, module: i % 4 === 1 ? '@sentry/browser' : frame.module })),
    { ...structuredClone(event), fingerprint: ['{{ default }}', `customer-${n % 3}`], platform: n % 2 ? 'cocoa' : event.platform },
    { ...structuredClone(event), platform: 'p'.repeat(1100), message: `${'m '.repeat(5000)}` },
  ];
}

function corpusEvents(): ErrorEvent[] {
  const events = labelEvents(readCorpus()).map(({ event }) => event);
  return [...events, ...events.flatMap(variants)];
}

/** More distinct frames than the frame memory keeps, so that it is cleared on the way. */
function manyFrames(): ErrorEvent[] {
  return Array.from({ length: 1100 }, (_, i) => ({
    id: `e${i}`,
    timestamp: '2026-11-01T12:00:00.000Z',
    environment: 'production',
    release: 'app@1.0.0',
    level: 'error' as const,
    project_id: 'p',
    received_at: '2026-11-01T12:00:01.000Z',
    processing_errors: [],
    platform: 'javascript',
    exception: {
      type: 'Error',
      value: `failed ${i}`,
      stacktrace: Array.from({ length: 25 }, (_, f) => ({ function: `fn${i}_${f}`, filename: `src/m${f}.ts`, in_app: f % 2 === 0 })),
    },
  }));
}

const CONFIGS: Array<[string, Record<string, unknown>]> = [
  ['the default config', {}],
  ['all frames, at most 5', { in_app_only: false, max_frames: 5 }],
  ['grouping rules', { rules: GROUPING_RULES }],
];

function item(event: ErrorEvent): Item {
  return { data: structuredClone(event), tenant: TENANT, receivedAt: 0, size: 0 };
}

/** A digest of what the processor and computeGrouping give each event (every input is deterministic: the events carry no id). */
function resultsDigest(events: readonly ErrorEvent[], config: GroupingConfig, processor: GroupingProcessor): string {
  const rules = compileRules(config.rules);
  const options = { max_frames: config.max_frames, in_app_only: config.in_app_only, rules };
  const digest = createHash('sha256');
  for (const event of events) {
    const grouped = item(event);
    processor.process([grouped]);
    const { exception, grouping_hash, issue_id, title, culprit, root_cause } = grouped.data as ErrorEvent;
    digest.update(`${JSON.stringify([exception, grouping_hash, issue_id, title, culprit, root_cause, computeGrouping(structuredClone(event), options)])}\n`);
  }
  return digest.digest('hex');
}

/** Per config: the digests of the bench's events, the corpus and its variants, and the many frames, by the code before. */
const BEFORE: Record<string, { bench: string; corpus: string; many: string }> = {
  'the default config': {
    bench: '821f195cd1b374bac4beb0bad4d3c3e3270bc53546186213e03627d0b5c365dd',
    corpus: '46a4339a77f6178c548491ef22c1e6741a2de5be6974fe817a9fe72df0768a4a',
    many: '3444b0163b572affd547175fad74126662b847af286e68a1b6bc4209d7a35feb',
  },
  'all frames, at most 5': {
    bench: '114b37032eab692bc5a9f5e060fc1da429a3d1136b58b80050bd0adc9e685041',
    corpus: '65191cf91ce50d091d8783cb2a2d70c5bdf66aa4922c14759b62db1086e7ef7f',
    many: '3ef742cb3cb1c5848b8c0ea9a49098f5f4a10fa50129855be67c720a011dcee5',
  },
  'grouping rules': {
    bench: '232509cd2dd5830572562645f5e4591170511a65e99db1e60ed319720655e0c7',
    corpus: 'f2b2613a9c187a2262ac8ae8aa69e29589d5f7e54c99cff438cd082433ca91b8',
    many: '3444b0163b572affd547175fad74126662b847af286e68a1b6bc4209d7a35feb',
  },
};

describe('grouping is the same as before its third round of cost cuts', () => {
  const bench = benchEvents();
  const corpus = corpusEvents();
  const many = manyFrames();

  it('has the events it says', () => {
    expect(bench).toHaveLength(4000);
    expect(corpus.length).toBeGreaterThan(2000 * 7);
  });

  for (const [name, doc] of CONFIGS) {
    it(`gives every event the same results: ${name}`, () => {
      const config = groupingConfigSchema.parse(doc);
      const processor = new GroupingProcessor(config, compileRules(config.rules));
      const digests = {
        bench: resultsDigest(bench, config, processor),
        corpus: resultsDigest(corpus, config, processor),
        many: resultsDigest(many, config, processor),
      };
      expect(digests).toEqual(BEFORE[name]);
      // Again, the frames now remembered (the memory was cleared on the way by the many frames).
      expect(resultsDigest(bench, config, processor)).toBe(BEFORE[name].bench);
    }, 300_000);
  }
});
