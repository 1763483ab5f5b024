// The issues processor's cost, from outside: two children on the default config side by side,
// both with the bench's 200 issues open (each body posted once first); on the second, 100 of the
// issues merged into the other 100 through POST /v1/issues/{id}/merge, so every other event is
// routed through a merge redirect (issue #26). Measured, at the same offered rate, interleaved:
// events of the open issues (the steady state: the issue is known), the same events on the merged
// child, and events that each open a new issue (a `fingerprint` of their own: a catalog write
// each). The issues processor cannot be taken out of a storing pipeline (the exporter needs the
// issue id), so the baseline is the known-issue run; the differences are what opening and routing add.
import { eventLoad, interleaved, postEach, roundsFor, warmEvents, withPhaseChildren, type FeaturePhase, type PhaseChild } from './child-phase.js';
import { defaultConfig } from './config-variants.js';
import { eventBodies } from './payloads.js';

export type IssuesResult = FeaturePhase;

async function mergeHalf(child: PhaseChild): Promise<number> {
  const list = await child.api<{ data: Array<{ id: string }> }>('GET', '/v1/issues?project_id=default&limit=1000');
  const ids = list.body.data.map((issue) => issue.id);
  let merged = 0;
  for (let i = 0; i + 1 < ids.length; i += 2) {
    const res = await child.api('POST', `/v1/issues/${ids[i]}/merge`, { issue_ids: [ids[i + 1]] });
    if (res.status !== 200) throw new Error(`POST /v1/issues/${ids[i]}/merge: ${res.status} ${JSON.stringify(res.body)}`);
    merged++;
  }
  return merged;
}

/** The same bodies, each with a fingerprint of its own: every event opens an issue. */
function newIssueBodies(bodies: Buffer[], count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const event = JSON.parse(bodies[i % bodies.length].toString()) as Record<string, unknown>;
    return Buffer.from(JSON.stringify({ ...event, fingerprint: [`bench-new-issue-${i}`] }));
  });
}

export async function measureIssues(options: { seconds: number; rate?: number }): Promise<IssuesResult> {
  const rate = options.rate ?? 200;
  const rounds = roundsFor(options.seconds);
  const { bodies } = eventBodies(600);
  const fresh = newIssueBodies(bodies, Math.ceil(rate * (options.seconds + 1) * rounds * 1.2));
  const variants = [
    { name: 'issues-open', doc: defaultConfig() },
    { name: 'issues-merged', doc: defaultConfig() },
  ];
  return withPhaseChildren(variants, async ([open, merged]) => {
    await Promise.all([open, merged].map((child) => postEach(child, bodies.slice(0, 200))));
    await warmEvents([open, merged], bodies, rate, options.seconds);
    const count = await mergeHalf(merged);
    let nextFresh = 0;
    const loads = await interleaved(rounds, {
      known: () => eventLoad(open.svc, bodies, rate, options.seconds, 0.3),
      merged: () => eventLoad(merged.svc, bodies, rate, options.seconds, 0.3),
      // Each run takes bodies not sent before (eventLoad cycles through the slice it is given).
      opening: () => {
        const slice = fresh.slice(nextFresh);
        nextFresh += Math.ceil(rate * (options.seconds + 0.3) * 1.1);
        return eventLoad(open.svc, slice, rate, options.seconds, 0.3);
      },
    });
    return {
      title: `ISSUES  the service (child process, default config), ${bodies.length} events of 200 open issues at ${rate}/s offered, ${options.seconds} s runs, interleaved; the baseline: events of known issues`,
      item: 'event',
      rows: [
        { label: 'events of the 200 open issues (known: no catalog write)', with: loads.known },
        { label: 'every event opens a new issue (a catalog write each)', with: loads.opening, without: loads.known },
        { label: `the same 200 issues, ${count} merged into the others (routed)`, with: loads.merged, without: loads.known },
      ],
      notes: ['CPU of the whole service per accepted event (all threads, /proc/<pid>/stat); noisy on a shared machine'],
    };
  });
}
