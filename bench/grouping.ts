// The grouping processor's cost, from outside: two children side by side, the default config and
// the same with grouping rules (5 stack-trace rules, 2 fingerprint rules: `processors.grouping.rules`),
// each sent the bench's ordinary events and hostile ones (250 in-app frames, the most validation
// keeps, with long names, paths and a recursion), at the same offered rate, interleaved. The
// grouping processor cannot leave a storing pipeline (the issue id comes from it), so the rows
// compare with the default config's run on the same events (rules) or on the ordinary events
// (hostile frames: that difference also holds validating and storing a larger event). The
// algorithm's quality is measured offline by `npm run grouping-eval` (bench/grouping-eval/).
import { eventLoad, interleaved, postEach, roundsFor, warmEvents, withPhaseChildren, type FeaturePhase } from './child-phase.js';
import { defaultConfig, GROUPING_RULES, groupingRulesConfig } from './config-variants.js';
import { eventBodies } from './payloads.js';

export interface GroupingResult extends FeaturePhase {
  /** Frames per hostile event. */
  hostileFrames: number;
}

const HOSTILE_FRAMES = 250;

/** Each of the first 200 bodies (one per error) with a stack of 250 in-app frames: long names and paths, anonymous and proxied functions, a recursion. */
function hostileBodies(bodies: Buffer[]): Buffer[] {
  return bodies.slice(0, 200).map((body, i) => {
    const event = JSON.parse(body.toString()) as { exception: Record<string, unknown> };
    const frames = Array.from({ length: HOSTILE_FRAMES }, (_, k) => ({
      filename: `webpack:///./src/${'deeply/nested/'.repeat(20)}module${i}_${k % 9}.${(k * 2654435761) % 0xffffff}.chunk.tsx`,
      function: k % 5 === 0 ? '<anonymous>' : k % 5 === 1 ? `Proxy.${'handle'.repeat(60)}${i}` : `recurse${i}_${k % 3}${'$'.repeat(k % 40)}`,
      lineno: 10 + (k % 300),
      colno: 1 + ((k * 7) % 120),
      in_app: true,
    }));
    return Buffer.from(JSON.stringify({ ...event, exception: { ...event.exception, stacktrace: frames } }));
  });
}

export async function measureGrouping(options: { seconds: number; rate?: number }): Promise<GroupingResult> {
  const rate = options.rate ?? 200;
  const { bodies } = eventBodies(600);
  const hostile = hostileBodies(bodies);
  const variants = [
    { name: 'grouping-default', doc: defaultConfig() },
    { name: 'grouping-rules', doc: groupingRulesConfig() },
  ];
  return withPhaseChildren(variants, async ([plain, ruled]) => {
    // Every issue open first (ordinary and hostile), so the runs compare grouping, not issue creation.
    await Promise.all([plain, ruled].map(async (child) => postEach(child, [...bodies.slice(0, 200), ...hostile])));
    await warmEvents([plain, ruled], bodies, rate, options.seconds);
    const run = (child: typeof plain, events: Buffer[]) => () => eventLoad(child.svc, events, rate, options.seconds, 0.3);
    const loads = await interleaved(roundsFor(options.seconds), {
      ordinary: run(plain, bodies),
      ordinaryRules: run(ruled, bodies),
      hostile: run(plain, hostile),
      hostileRules: run(ruled, hostile),
    });
    return {
      title: `GROUPING  the service (child process), the default config and the same with grouping rules; ordinary events (${bodies.length}) and hostile ones (200, ${HOSTILE_FRAMES} in-app frames) at ${rate}/s offered, ${options.seconds} s runs, interleaved`,
      item: 'event',
      rows: [
        { label: 'ordinary events, default config', with: loads.ordinary },
        {
          label: `ordinary events, ${GROUPING_RULES.stacktrace.length} stack-trace and ${GROUPING_RULES.fingerprint.length} fingerprint rules`,
          with: loads.ordinaryRules,
          without: loads.ordinary,
        },
        { label: `hostile events (${HOSTILE_FRAMES} frames), default config (against ordinary events)`, with: loads.hostile, without: loads.ordinary },
        { label: 'hostile events with the rules (against hostile events without)', with: loads.hostileRules, without: loads.hostile },
      ],
      notes: [
        'CPU of the whole service per accepted event (all threads, /proc/<pid>/stat); noisy on a shared machine.',
        'Grouping cannot leave a storing pipeline: the hostile row also holds validating and storing a larger event.',
      ],
      hostileFrames: HOSTILE_FRAMES,
    };
  });
}
