// The grouping processor's cost on the hot path, in process: CPU per event of version 1 (the
// baseline, as grouping was before issue #12), version 2 (frozen), version 3, version 3 after the
// vendor-frame pass the grouping processor runs first (node_modules and Sentry SDK frames set not
// in-app), version 3 during an upgrade's transition (it also computes version 2's hash), and
// version 3 with stack-trace and fingerprint rules, over the bench's 600 validated events (200
// errors x 3 releases).
import type { Item } from '../src/engine/item.js';
import type { ErrorEvent } from '../src/records/event.js';
import { computeGrouping, groupingHash, type GroupingOptions } from '../processors/grouping/fingerprint.js';
import { compileRules } from '../processors/grouping/compile-rules.js';
import { markVendorFrames } from '../src/records/in-app.js';
import { groupingRulesSchema } from '../processors/grouping/rules/index.js';
import { validationConfigSchema } from '../processors/validation/config.js';
import { EventValidationProcessor } from '../processors/validation/processor.js';
import { errorTemplates, eventBody, RELEASES, rng } from './payloads.js';
import { labelEvents, readCorpus } from './grouping-eval/evaluate.js';

export interface GroupingCase {
  label: string;
  cpuMicrosPerEvent: number;
}

export interface GroupingResult {
  events: number;
  cases: GroupingCase[];
}

/** Rules a team might keep: library code out of the app, proxies and logging out of the group, two fingerprints. */
const RULES = {
  stacktrace: [
    'family:javascript path:**/node_modules/** -app',
    'path:**/vendor/** -app',
    'function:*Proxy* -group',
    'family:jvm module:org.springframework.** -app',
    'function:log* -group',
  ],
  fingerprint: ['type:ChunkLoadError -> chunk-load-failed', 'type:DatabaseError value:"connection*" -> database-connection'],
};

function events(): ErrorEvent[] {
  const validation = new EventValidationProcessor(validationConfigSchema.parse({}));
  const random = rng(23);
  const out: ErrorEvent[] = [];
  for (const template of errorTemplates()) {
    RELEASES.forEach((_, r) => {
      const item: Item = {
        data: eventBody(template, r, random),
        tenant: { orgId: 'default', projectId: 'default', dataset: 'live' },
        receivedAt: Date.now(),
        size: 0,
      };
      validation.process([item]);
      if (item.outcome === undefined) out.push(item.data as ErrorEvent);
    });
  }
  return out;
}

function cpuPerEvent(all: ErrorEvent[], seconds: number, run: (event: ErrorEvent) => void): number {
  for (const event of all) run(event); // warm the memos and the JIT
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    for (const event of all) run(event);
    n += all.length;
  }
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / n;
}

/** The SDKs issue #32 added rules for: their events of the grouping corpus, validated. */
const ROUND_THREE = new Set(['ruby', 'php', 'dotnet', 'rust', 'dart', 'kotlin', 'swift', 'elixir', 'react-native', 'message-data']);

function roundThreeEvents(): ErrorEvent[] {
  return labelEvents(readCorpus().filter((line) => ROUND_THREE.has(line.category))).map((labeled) => labeled.event);
}

export function measureGrouping(options: { seconds: number }): GroupingResult {
  const all = events();
  const sdks = roundThreeEvents();
  const rules = compileRules(groupingRulesSchema.parse(RULES));
  const v2: GroupingOptions = { version: 2 };
  const v3: GroupingOptions = { version: 3 };
  const cases: Array<[string, (event: ErrorEvent) => void]> = [
    ['version 1 (before issue #12: the baseline)', (e) => computeGrouping(e, { version: 1 })],
    ['version 2 (frozen, before issue #32)', (e) => computeGrouping(e, v2)],
    ['version 3 (current)', (e) => computeGrouping(e, v3)],
    [
      'version 3 after the vendor-frame pass (as the grouping processor runs it)',
      (e) => {
        markVendorFrames(e.exception);
        computeGrouping(e, v3);
      },
    ],
    [
      "version 3 during an upgrade (also version 2's hash)",
      (e) => {
        computeGrouping(e, v3);
        groupingHash(e, v2);
      },
    ],
    [
      `version 3 with ${RULES.stacktrace.length} stack-trace and ${RULES.fingerprint.length} fingerprint rules`,
      (e) => computeGrouping(e, { version: 3, rules }),
    ],
  ];
  const measured = cases.map(([label, run]) => ({ label, cpuMicrosPerEvent: cpuPerEvent(all, options.seconds, run) }));
  // The other SDKs' events (Ruby, PHP, .NET, Rust, Dart, Kotlin, Swift, Elixir, React Native), where version 3's own rules run.
  measured.push(
    {
      label: `version 2 on ${sdks.length} corpus events of the round-three SDKs`,
      cpuMicrosPerEvent: cpuPerEvent(sdks, options.seconds, (e) => computeGrouping(e, v2)),
    },
    { label: `version 3 on the same`, cpuMicrosPerEvent: cpuPerEvent(sdks, options.seconds, (e) => computeGrouping(e, v3)) },
  );
  return { events: all.length, cases: measured };
}
