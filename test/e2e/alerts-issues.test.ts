// new_issue and regression rules end to end: the real service, events over HTTP, notifications at a
// real local HTTP receiver — signed, once per transition under concurrent copies, retried with the
// same Idempotency-Key, silent when muted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../../processors/alerting/signature.js';
import { alertingYaml, createRule, errorEvent, getRule, ruleUntil } from '../support/alerts.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let hook: Receiver;
beforeAll(async () => {
  [svc, hook] = await Promise.all([startService({ yaml: alertingYaml() }), startReceiver()]);
});
afterAll(async () => {
  await svc.stop();
  await hook.close();
});

async function postEvent(body: Record<string, unknown>, key?: string): Promise<{ id: string; permalink: string }> {
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(body), key });
  expect(res.status).toBe(202);
  return (await res.json()) as { id: string; permalink: string };
}

describe('new_issue rules', () => {
  it('send one signed notification with the permalink for the event that opens an issue', async () => {
    const path = '/new-issue';
    await createRule(svc, { name: 'New issues', type: 'new_issue', actions: [{ type: 'webhook', url: `${hook.url}${path}`, secret: 's3cret' }] });
    const ack = await postEvent(errorEvent({}, 'CheckoutError'));
    const [request] = await hook.waitFor(1, (r) => r.path === path);
    expect(request.json).toMatchObject({
      state: 'firing',
      rule: { name: 'New issues', type: 'new_issue' },
      project: { id: 'default', name: 'Default project' },
      transition: 'new',
      issue: { permalink: ack.permalink, count: 1, status: 'unresolved', title: expect.stringContaining('CheckoutError') },
      event: { id: ack.id, exception: { type: 'CheckoutError' } },
    });
    const headers = { timestamp: String(request.headers['x-faultline-timestamp']), signature: String(request.headers['x-faultline-signature']) };
    expect(headers.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify('s3cret', headers, request.body)).toBe(true);
    expect(verify('wrong', headers, request.body)).toBe(false);
    expect(verify('s3cret', headers, `${request.body} `)).toBe(false);
    expect(request.headers['idempotency-key']).toBeTruthy();
    // Another event of the same issue is not a new issue.
    await postEvent(errorEvent({}, 'CheckoutError'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.requests.filter((r) => r.path === path)).toHaveLength(1);
  });

  it('fire once under 50 concurrent copies of the opening event', async () => {
    const path = '/copies';
    await createRule(svc, { name: 'Copies', type: 'new_issue', actions: [{ type: 'webhook', url: `${hook.url}${path}` }] });
    const event = { ...errorEvent({}, 'RaceError'), id: '0190a3c4-0000-7000-8000-000000000050' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event) })));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(202));
    await hook.waitFor(1, (r) => r.path === path);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(hook.requests.filter((r) => r.path === path)).toHaveLength(1);
  });

  it('stay silent when muted, and speak again when unmuted', async () => {
    const path = '/muted';
    const rule = await createRule(svc, { name: 'Muted', type: 'new_issue', enabled: false, actions: [{ type: 'webhook', url: `${hook.url}${path}` }] });
    await postEvent(errorEvent({}, 'MutedError'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(hook.requests.filter((r) => r.path === path)).toHaveLength(0);
    expect((await getRule(svc, rule.id)).firings).toEqual([]);
    const res = await svc.api(`/v1/alerts/${rule.id}`, { method: 'PATCH', body: JSON.stringify({ enabled: true }) });
    expect(res.status).toBe(200);
    await postEvent(errorEvent({}, 'UnmutedError'));
    const [request] = await hook.waitFor(1, (r) => r.path === path);
    expect(request.json).toMatchObject({ issue: { title: expect.stringContaining('UnmutedError') } });
  });

  it('retry a receiver that answers 500 until it answers 200, with the same Idempotency-Key', async () => {
    const path = '/flaky';
    const rule = await createRule(svc, { name: 'Flaky', type: 'new_issue', actions: [{ type: 'webhook', url: `${hook.url}${path}` }] });
    hook.respond(path, 500);
    await postEvent(errorEvent({}, 'FlakyError'));
    const [first, second] = await hook.waitFor(2, (r) => r.path === path);
    expect(first.status).toBe(500);
    expect(second.status).toBe(200);
    expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect(second.body).toBe(first.body);
    const view = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries[0]?.status === 'delivered');
    expect(view.firings[0].deliveries[0]).toMatchObject({ status: 'delivered', attempts: 2, last_error: 'http_500' });
    const metrics = await (await svc.api('/metrics', { key: null })).text();
    expect(metrics).toMatch(/faultline_alert_deliveries_total\{action="webhook",outcome="retried"\} [1-9]/);
    expect(metrics).toMatch(/faultline_alert_deliveries_total\{action="webhook",outcome="delivered"\} [1-9]/);
  });

  it('give up after the configured attempts and show the failure', async () => {
    const path = '/down';
    const rule = await createRule(svc, { name: 'Down', type: 'new_issue', actions: [{ type: 'webhook', url: `${hook.url}${path}` }] });
    hook.respond(path, 503, 503, 503, 503);
    await postEvent(errorEvent({}, 'DownError'));
    const view = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries[0]?.status === 'failed');
    expect(view.firings[0].deliveries[0]).toMatchObject({ status: 'failed', attempts: 4, last_error: 'http_503' });
    expect(hook.requests.filter((r) => r.path === path)).toHaveLength(4);
  });
});

describe('regression rules', () => {
  it('fire once when a resolved issue gets an event, also under 50 concurrent copies', async () => {
    const path = '/regression';
    await createRule(svc, { name: 'Regressions', type: 'regression', actions: [{ type: 'webhook', url: `${hook.url}${path}` }, { type: 'log' }] });
    const ack = await postEvent(errorEvent({}, 'RegressError'));
    const issueId = ack.permalink.split('/').at(-1) as string;
    expect((await svc.api(`/v1/issues/${issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) })).status).toBe(200);
    const event = { ...errorEvent({}, 'RegressError'), id: '0190a3c4-0000-7000-8000-0000000000aa' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => svc.api('/v1/events', { method: 'POST', body: JSON.stringify(event) })));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(202));
    const [request] = await hook.waitFor(1, (r) => r.path === path);
    expect(request.json).toMatchObject({ transition: 'regressed', issue: { id: issueId, status: 'regressed', count: 2 } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(hook.requests.filter((r) => r.path === path)).toHaveLength(1);
    // Resolved again and regressed again: a new transition, a new notification.
    await svc.api(`/v1/issues/${issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) });
    await postEvent(errorEvent({}, 'RegressError'));
    await hook.waitFor(2, (r) => r.path === path);
  });
});

describe('alert history', () => {
  it('is deleted after retention.alerts_days once its deliveries are settled; a pending one stays', async () => {
    const sent = await createRule(svc, { name: 'Kept a while', type: 'new_issue', actions: [{ type: 'webhook', url: `${hook.url}/history` }] });
    await postEvent(errorEvent({}, 'HistoryError'));
    await hook.waitFor(1, (r) => r.path === '/history');
    await ruleUntil(svc, sent.id, (rule) => rule.firings.some((f) => f.deliveries.every((d) => d.status === 'delivered')));
    // Nobody listens here: its delivery stays pending (retried later).
    const pending = await createRule(svc, { name: 'Never delivered', type: 'new_issue', actions: [{ type: 'webhook', url: 'http://127.0.0.1:9/nowhere' }] });
    await postEvent(errorEvent({}, 'PendingError'));
    await ruleUntil(svc, pending.id, (rule) => rule.firings.length === 1);

    await svc.service.runRetention({ alerts_days: 1 }, Date.now() + 3 * 86_400_000);
    expect((await getRule(svc, sent.id)).firings).toEqual([]);
    expect((await getRule(svc, pending.id)).firings).toHaveLength(1);
  });
});
