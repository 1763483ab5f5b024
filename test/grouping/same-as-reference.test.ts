// Issue #30, round three: the faster grouping gives every event exactly what the code before it
// gave (test/grouping/reference/): hash, components, basis, title, culprit, root cause, issue id
// and the in_app marks, over the bench's 4,000 SDK events, the labeled corpus, variants of the
// corpus that take the other paths (vendor paths, names past grouping's limits, frame platforms,
// instruction addresses, custom fingerprints), with and without grouping rules and other limits.
import { isDeepStrictEqual } from 'node:util';
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
import { computeGrouping as referenceGrouping } from './reference/fingerprint.js';
import { ReferenceGroupingProcessor } from './reference/processor.js';

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

/** The events whose enriched form differs between the reference and the processor, with the first few differences. */
function differences(events: readonly ErrorEvent[], config: GroupingConfig): { count: number; first: unknown[] } {
  const rules = compileRules(config.rules);
  const reference = new ReferenceGroupingProcessor(config, rules);
  const processor = new GroupingProcessor(config, rules);
  const first: unknown[] = [];
  let count = 0;
  for (const event of events) {
    const [before, after] = [item(event), item(event)];
    reference.process([before]);
    processor.process([after]);
    const options = { max_frames: config.max_frames, in_app_only: config.in_app_only, rules };
    const [expected, actual] = [referenceGrouping(structuredClone(event), options), computeGrouping(structuredClone(event), options)];
    if (isDeepStrictEqual(after.data, before.data) && isDeepStrictEqual(actual, expected)) continue;
    count++;
    if (first.length < 3) first.push({ event: event.id, before: before.data, after: after.data, expected, actual });
  }
  return { count, first };
}

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
      for (const events of [bench, corpus, many]) expect(differences(events, config)).toEqual({ count: 0, first: [] });
      // Again, the frames now remembered (the memory was cleared on the way by the many frames).
      expect(differences(bench, config)).toEqual({ count: 0, first: [] });
    }, 300_000);
  }
});
