// /v1/alerts as a client sees it: every bad field named in one 400, the key's scope and dataset,
// lists with filters and pages, changes, deletes and test notifications. Refused destinations and
// the limits are in alerts-security.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingYaml, createRule, getRule, ruleUntil, type RuleView } from '../support/alerts.js';
import { expectError } from '../support/http.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startService, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;
let hook: Receiver;
let shopKey: string;

beforeAll(async () => {
  [svc, hook] = await Promise.all([startService({ yaml: alertingYaml() }), startReceiver()]);
  await catalogOf(svc.service.host).createProject({ id: 'shop', name: 'Shop' });
  shopKey = (await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'shop' })).secret;
});
afterAll(async () => {
  await svc.stop();
  await hook.close();
});

const post = (body: unknown, key?: string) => svc.api('/v1/alerts', { method: 'POST', body: JSON.stringify(body), key });
const log = [{ type: 'log' }];

describe('validation', () => {
  it('lists every bad field of a rule in one 400', async () => {
    const body = await expectError(
      await post({
        project_id: 'default',
        name: '',
        type: 'error_spike',
        conditions: { threshold: -1, window: '30s', level: 'loud', tags: { route: 7 }, bogus: true },
        actions: [{ type: 'webhook', url: 'ftp://hooks.example.com' }, { type: 'pager' }, { type: 'slack', url: 'https://u:p@hooks.slack.com/x' }],
        enabled: 'yes',
        frequency: 'soon',
        colour: 'red',
      }),
      400,
      'validation_failed',
    );
    expect(body.error.details.map((d) => d.path).sort()).toEqual(
      [
        'actions[0].url',
        'actions[1].type',
        'actions[2].url',
        'colour',
        'conditions.bogus',
        'conditions.level',
        'conditions.tags.route',
        'conditions.threshold',
        'conditions.window',
        'enabled',
        'frequency',
        'name',
      ].sort(),
    );
  });

  it('checks each type’s conditions', async () => {
    const latency = await expectError(
      await post({
        project_id: 'default',
        name: 'p',
        type: 'latency',
        environment: 'production',
        conditions: { percentile: 99.95, threshold_ms: 0, window: '8d', min_samples: 0 },
        actions: log,
      }),
      400,
      'validation_failed',
    );
    expect(latency.error.details.map((d) => d.path).sort()).toEqual(
      ['conditions.min_samples', 'conditions.percentile', 'conditions.service', 'conditions.threshold_ms', 'conditions.window', 'environment'].sort(),
    );
    const spike = await expectError(
      await post({ project_id: 'default', name: 's', type: 'error_spike', conditions: { threshold: 1, percent_increase: 50, window: '5m' }, actions: log }),
      400,
      'validation_failed',
    );
    expect(spike.error.details.map((d) => d.path)).toContain('conditions.threshold');
    const percent = await expectError(
      await post({ project_id: 'default', name: 's', type: 'error_spike', conditions: { percent_increase: 50, window: '5m' }, actions: log }),
      400,
      'validation_failed',
    );
    expect(percent.error.details.map((d) => d.path)).toEqual(['conditions.comparison_window']);
    const issue = await expectError(
      await post({ project_id: 'default', name: 'n', type: 'new_issue', conditions: { threshold: 1 }, actions: [] }),
      400,
      'validation_failed',
    );
    expect(issue.error.details.map((d) => d.path).sort()).toEqual(['actions', 'conditions.threshold']);
    const missing = await expectError(await post({}), 400, 'validation_failed');
    expect(missing.error.details.map((d) => d.path).sort()).toEqual(['actions', 'name', 'project_id', 'type']);
  });

  it('answers bad bodies and parameters with the error body, never a 5xx', async () => {
    await expectError(await svc.api('/v1/alerts', { method: 'POST', body: '{"name": ' }), 400, 'invalid_json');
    await expectError(await post([1, 2]), 400, 'validation_failed');
    await expectError(await svc.api('/v1/alerts', { method: 'POST', body: '{}', key: null }), 401, 'unauthorized');
    await expectError(await svc.api('/v1/alerts?project_id=default&limit=0'), 400, 'invalid_parameter');
    await expectError(await svc.api('/v1/alerts?project_id=default&type=loud'), 400, 'invalid_parameter');
    await expectError(await svc.api('/v1/alerts?project_id=default&enabled=maybe'), 400, 'invalid_parameter');
    await expectError(await svc.api('/v1/alerts?project_id=default&cursor=nope'), 400, 'invalid_parameter');
    await expectError(await svc.api('/v1/alerts'), 400, 'invalid_parameter'); // an organization key names the project
    await expectError(await svc.api('/v1/alerts/alr_missing'), 404, 'not_found');
    await expectError(await svc.api('/v1/alerts/alr_missing', { method: 'PATCH', body: '{}' }), 404, 'not_found');
    await expectError(await svc.api('/v1/alerts/alr_missing', { method: 'DELETE' }), 404, 'not_found');
    await expectError(await svc.api('/v1/alerts/alr_missing', { method: 'PUT', body: '{}' }), 405, 'method_not_allowed');
  });
});

describe('rules', () => {
  let rule: RuleView;
  beforeAll(async () => {
    rule = await createRule(svc, {
      name: 'Hooks',
      type: 'new_issue',
      environment: 'production',
      actions: [{ type: 'webhook', url: `${hook.url}/rules`, secret: 'hush' }],
    });
  });

  it('answers 201 with the rule, its defaults and state, and never shows a secret', async () => {
    const res = await svc.api(`/v1/alerts/${rule.id}`);
    const text = await res.text();
    expect(text).not.toContain('hush');
    expect(JSON.parse(text)).toMatchObject({
      id: expect.stringMatching(/^alr_/),
      project_id: 'default',
      name: 'Hooks',
      enabled: true,
      state: 'ok',
      conditions: {},
      actions: [{ type: 'webhook', url: `${hook.url}/rules`, secret_set: true }],
      created_at: expect.any(String),
      firings: [],
    });
    const spike = await createRule(svc, { name: 'Spike', type: 'error_spike', frequency: undefined, conditions: { threshold: 5, window: '1h' }, actions: log });
    expect(spike).toMatchObject({ frequency: '30m', conditions: { threshold: 5, window: '1h' } });
    const latency = await createRule(svc, { name: 'Slow', type: 'latency', conditions: { service: 'api', threshold_ms: 300, window: '10m' }, actions: log });
    expect(latency.conditions).toEqual({ service: 'api', percentile: 95, threshold_ms: 300, window: '10m', min_samples: 10 });
  });

  it('lists with filters and pages', async () => {
    await createRule(svc, { name: 'Muted', type: 'regression', enabled: false, actions: log });
    const all = (await (await svc.api('/v1/alerts?project_id=default&limit=1000')).json()) as { data: RuleView[] };
    const muted = (await (await svc.api('/v1/alerts?project_id=default&enabled=false')).json()) as { data: RuleView[] };
    expect(muted.data.map((r) => r.enabled)).toEqual([false]);
    const regressions = (await (await svc.api('/v1/alerts?project_id=default&type=regression')).json()) as { data: Array<{ type: string }> };
    expect(regressions.data.every((r) => r.type === 'regression')).toBe(true);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (await svc.api(`/v1/alerts?project_id=default&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json()) as {
        data: RuleView[];
        next_cursor: string | null;
      };
      seen.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.data.map((r) => r.id));
  });

  it('changes any field, validating the result, and deletes', async () => {
    const changed = await svc.api(`/v1/alerts/${rule.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'Renamed', frequency: '1h', environment: null }) });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ name: 'Renamed', frequency: '1h', environment: null, actions: [{ secret_set: true }] });
    const bad = await expectError(
      await svc.api(`/v1/alerts/${rule.id}`, { method: 'PATCH', body: JSON.stringify({ type: 'latency', frequency: '9d' }) }),
      400,
      'validation_failed',
    );
    expect(bad.error.details.map((d) => d.path).sort()).toEqual(['conditions.service', 'conditions.threshold_ms', 'conditions.window', 'frequency']);
    const doomed = await createRule(svc, { name: 'Doomed', type: 'new_issue', actions: log });
    expect((await svc.api(`/v1/alerts/${doomed.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectError(await svc.api(`/v1/alerts/${doomed.id}`), 404, 'not_found');
  });

  it('sends a test notification through every action', async () => {
    const res = await svc.api(`/v1/alerts/${rule.id}/test`, { method: 'POST' });
    expect(res.status).toBe(202);
    const [request] = await hook.waitFor(1, (r) => r.path === '/rules' && r.json.state === 'test');
    expect(request.json).toMatchObject({ state: 'test', rule: { id: rule.id }, text: expect.stringContaining('test notification') });
    expect(request.headers['x-faultline-signature']).toMatch(/^sha256=/);
    const view = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries[0]?.status === 'delivered');
    expect(view.firings[0]).toMatchObject({ state: 'test', deliveries: [{ type: 'webhook', status: 'delivered', attempts: 1 }] });
  });
});

describe('scope and dataset', () => {
  it('gives a project key its project’s rules only', async () => {
    const own = await createRule(svc, { project_id: undefined, name: 'Shop rule', type: 'new_issue', actions: log }, shopKey);
    expect(own.project_id).toBe('shop');
    const other = await createRule(svc, { name: 'Default rule', type: 'new_issue', actions: log });
    await expectError(await svc.api(`/v1/alerts/${other.id}`, { key: shopKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/alerts/${other.id}`, { method: 'DELETE', key: shopKey }), 404, 'not_found');
    await expectError(await post({ project_id: 'default', name: 'x', type: 'new_issue', actions: log }, shopKey), 403, 'forbidden');
    await expectError(await svc.api('/v1/alerts?project_id=default', { key: shopKey }), 403, 'forbidden');
    const list = (await (await svc.api('/v1/alerts', { key: shopKey })).json()) as { data: RuleView[] };
    expect(list.data.map((r) => r.id)).toEqual([own.id]);
    await expectError(await post({ project_id: 'nowhere', name: 'x', type: 'new_issue', actions: log }), 404, 'not_found');
  });

  it('keeps live and sandbox rules apart', async () => {
    const live = await createRule(svc, { name: 'Live', type: 'new_issue', actions: log });
    const sandbox = await createRule(svc, { name: 'Sandbox', type: 'new_issue', actions: log }, svc.testKey);
    await expectError(await svc.api(`/v1/alerts/${live.id}`, { key: svc.testKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/alerts/${sandbox.id}`), 404, 'not_found');
    const list = (await (await svc.api('/v1/alerts?project_id=default', { key: svc.testKey })).json()) as { data: RuleView[] };
    expect(list.data.map((r) => r.id)).toEqual([sandbox.id]);
    expect((await getRule(svc, sandbox.id, svc.testKey)).name).toBe('Sandbox');
  });
});
