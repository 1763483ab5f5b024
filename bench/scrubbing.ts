// The scrubbing processor's cost, from outside: the service as a child process on the default
// config, on the same with `scrubbing: {enabled: false}` (the documented way to store events
// unscrubbed; a storing pipeline cannot simply drop it), and with every option and two custom
// rules; the bench's events posted over HTTP at the same offered rate to each, and the child's
// CPU per accepted event. The events again carrying secrets in headers, data, extra and the
// message go to the default and the disabled variants.
import { eventLoad, interleaved, pooled, roundsFor, warmEvents, withPhaseChildren, type FeaturePhase } from './child-phase.js';
import { defaultConfig, scrubbingOffConfig } from './config-variants.js';
import type { ChildService } from './service.js';
import { errorTemplates, eventBody, RELEASES, rng } from './payloads.js';

export interface ScrubbingResult extends FeaturePhase {
  /** Distinct request bodies (each posted again and again). */
  events: number;
  /** Mean size of the request bodies. */
  meanEventBytes: number;
  /** Offered events per second in every run. */
  rate: number;
}

function bodies(withSecrets: boolean): Buffer[] {
  const random = rng(29);
  const out: Buffer[] = [];
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
      out.push(Buffer.from(JSON.stringify(body)));
    });
  }
  return out;
}

export const EVERYTHING = {
  scrub_ip: true,
  scrub_email: true,
  sensitive_fields: ['iban', 'phone'],
  rules: [
    { id: 'customer', selector: '$string', pattern: 'cust-[0-9]{6}', method: 'mask' },
    { id: 'customer-header', selector: 'request.headers.x-customer-id', method: 'hash' },
  ],
};

export async function measureScrubbing(options: { seconds: number; rate?: number }): Promise<ScrubbingResult> {
  const rate = options.rate ?? 200;
  const plain = bodies(false);
  const secrets = bodies(true);
  const run = (svc: ChildService, events: Buffer[]) => () => eventLoad(svc, events, rate, options.seconds, 0.3);
  const variants = [
    { name: 'scrubbing-off', doc: scrubbingOffConfig() },
    { name: 'scrubbing-on', doc: defaultConfig() },
  ];
  const { offPlain, onPlain, offSecrets, onSecrets, everything } = await withPhaseChildren(variants, async ([off, on]) => {
    await warmEvents([off, on], plain, rate, options.seconds);
    const loads = await interleaved(roundsFor(options.seconds), {
      offPlain: run(off.svc, plain),
      onPlain: run(on.svc, plain),
      offSecrets: run(off.svc, secrets),
      onSecrets: run(on.svc, secrets),
    });
    // Every option on for the project (PATCH /v1/projects/{id}: flags override the config's, lists add up).
    const patched = await on.api('PATCH', '/v1/projects/default', { data_scrubbing: EVERYTHING });
    if (patched.status !== 200) throw new Error(`PATCH /v1/projects/default: ${patched.status} ${JSON.stringify(patched.body)}`);
    const all = await interleaved(roundsFor(options.seconds), { offPlain: run(off.svc, plain), everything: run(on.svc, plain) });
    return { ...loads, offPlain: pooled([loads.offPlain, all.offPlain]), everything: all.everything };
  });
  const meanEventBytes = plain.reduce((sum, body) => sum + body.length, 0) / plain.length;
  return {
    title: `SCRUBBING  the service (child process) on the default config, without it: scrubbing {enabled: false}; ${plain.length} events (mean ${(meanEventBytes / 1024).toFixed(1)} KiB) at ${rate}/s offered, ${options.seconds} s runs, with and without interleaved`,
    item: 'event',
    rows: [
      { label: 'default rules', with: onPlain, without: offPlain },
      { label: 'default rules, events with secrets to replace', with: onSecrets, without: offSecrets },
      { label: 'every option and 2 custom rules on the project (one RE2 pattern over every string)', with: everything, without: offPlain },
    ],
    notes: ['CPU of the whole service per accepted event (all threads, /proc/<pid>/stat); the difference is what scrubbing adds (noisy on a shared machine)'],
    events: plain.length,
    meanEventBytes,
    rate,
  };
}
