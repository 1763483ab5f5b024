// The alerting processor's cost, from outside: two children on the default config side by side,
// one with no alert rules and one with 100 rules on the events' project created through
// POST /v1/alerts (60 error_spike, half of them matching and counting the events, 20 new_issue,
// 20 regression that the events do not trigger: the issues are open before the measured runs),
// then, on the same child, those rules deleted and 100 latency rules made for the spans' services.
// The same events (and OTLP span batches) at the same offered rate to both; the child's CPU per
// accepted item, the runs with and without interleaved.
import { measureLoad, eventLoad, interleaved, postEach, roundsFor, warmEvents, withPhaseChildren, type FeaturePhase, type PhaseChild } from './child-phase.js';
import { defaultConfig } from './config-variants.js';
import { eventBodies, SpanPayloads } from './payloads.js';

export type AlertingResult = FeaturePhase;

const SERVICES = ['checkout-api', 'catalog-api', 'orders-worker', 'gateway'];

async function createRule(child: PhaseChild, rule: Record<string, unknown>): Promise<void> {
  const res = await child.api('POST', '/v1/alerts', { project_id: 'default', actions: [{ type: 'log' }], frequency: '30m', ...rule });
  if (res.status !== 201) throw new Error(`POST /v1/alerts: ${res.status} ${JSON.stringify(res.body)}`);
}

async function deleteRules(child: PhaseChild): Promise<void> {
  for (;;) {
    const list = await child.api<{ data: Array<{ id: string }> }>('GET', '/v1/alerts?project_id=default&limit=100');
    if (!list.body.data.length) return;
    for (const rule of list.body.data) await child.api('DELETE', `/v1/alerts/${rule.id}`);
  }
}

export async function measureAlerting(options: { seconds: number; rate?: number; spanRequestsPerSecond?: number }): Promise<AlertingResult> {
  const rate = options.rate ?? 200;
  const spanRate = options.spanRequestsPerSecond ?? 4;
  const { bodies } = eventBodies(600);
  const spans = new SpanPayloads();
  const rounds = roundsFor(options.seconds);
  const spanLoad = (child: PhaseChild) => () =>
    measureLoad(child.svc, {
      url: `${child.svc.otlpUrl}/v1/traces`,
      headers: { authorization: `Bearer ${child.svc.liveKey}`, 'content-type': 'application/x-protobuf' },
      nextBody: () => spans.nextBody(),
      rate: spanRate,
      seconds: options.seconds,
      warmup: 0.3,
      itemsPerRequest: spans.spansPerRequest,
    });
  const variants = [
    { name: 'alerting-none', doc: defaultConfig() },
    { name: 'alerting-rules', doc: defaultConfig() },
  ];
  return withPhaseChildren(variants, async ([none, ruled]) => {
    await warmEvents([none, ruled], bodies, rate, options.seconds);
    // Every issue open before the rules exist, so new_issue rules are evaluated and not triggered.
    await Promise.all([none, ruled].map((child) => postEach(child, bodies.slice(0, 200))));
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i < 60
          ? createRule(ruled, {
              name: `spike ${i}`,
              type: 'error_spike',
              conditions: { threshold: 1e6, window: '5m', tags: { route: i % 2 ? '/checkout' : '/nowhere' } },
            })
          : createRule(ruled, { name: `${i < 80 ? 'new' : 'regression'} ${i}`, type: i < 80 ? 'new_issue' : 'regression', conditions: {} }),
      ),
    );
    const events = await interleaved(rounds, {
      none: () => eventLoad(none.svc, bodies, rate, options.seconds, 0.3),
      rules: () => eventLoad(ruled.svc, bodies, rate, options.seconds, 0.3),
    });
    await deleteRules(ruled);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        createRule(ruled, {
          name: `latency ${i}`,
          type: 'latency',
          conditions: { service: i % 2 ? SERVICES[i % 4] : `other-${i}`, percentile: 95, threshold_ms: 60_000, window: '5m', min_samples: 10 },
        }),
      ),
    );
    const spanLoads = await interleaved(rounds, { none: spanLoad(none), rules: spanLoad(ruled) });
    return {
      title: `ALERTING  the service (child process, default config) with 100 alert rules on the project (POST /v1/alerts) against one with none; events at ${rate}/s, OTLP batches of ${spans.spansPerRequest} spans at ${spanRate}/s offered, ${options.seconds} s runs, interleaved`,
      item: 'item',
      rows: [
        { label: 'events, 100 rules (60 error_spike, half counting; 20 new_issue, 20 regression)', with: events.rules, without: events.none },
        { label: 'spans, 100 latency rules (half on the spans’ services)', with: spanLoads.rules, without: spanLoads.none },
      ],
      notes: ['CPU of the whole service per accepted item (all threads, /proc/<pid>/stat); the difference is what the rules add (noisy on a shared machine)'],
    };
  });
}
