// Alert rules as an attacker with an API key would use them (issue 23, items 3 and 4): webhooks
// and Slack at addresses inside the network (refused when the rule is saved, and again on the
// address a request actually connects to), delivery errors that would map ports, too many rules,
// test notifications in a loop, and slow receivers that would hold up everyone's notifications.
//
// Traffic goes to 127.0.0.1 only. Host names resolve through the test's own resolver, put in the
// service's destination guard (alertsOf(host).destinations.policy.resolve): no DNS query leaves the
// machine, and no request goes to any address the resolver makes up — a public one is only ever
// answered to the check made when a rule is saved, and those rules never fire.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertingYaml, createRule, getRule, ruleUntil } from '../support/alerts.js';
import { expectError } from '../support/http.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startService, type TestService } from '../support/service.js';
import { createUser, WebClient } from '../support/web.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import { catalogOf } from '../../extensions/catalog/index.js';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** A resolver from a table; names it does not know do not resolve. Counts every question. */
function tableResolver(table: Record<string, string[] | (() => string[] | Promise<string[]>)>) {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    asked.push(hostname);
    const answer = table[hostname];
    if (answer === undefined) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof answer === 'function' ? answer() : answer;
  };
  return { resolve, asked };
}

/** An HTTP server on loopback that takes requests and never answers them. */
async function startHangingReceiver(): Promise<{ url: string; received: IncomingMessage[]; close(): Promise<void> }> {
  const received: IncomingMessage[] = [];
  const server: Server = createServer((req) => void received.push(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP listener on loopback that counts connections (and closes them). */
async function startConnectionCounter(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Signs in a new admin, posts the web app's new-rule form, expects it refused (400) and returns the page. */
async function refusedInWebApp(svc: TestService, fields: Record<string, string>): Promise<string> {
  const email = `admin-${Math.random().toString(36).slice(2)}@example.com`;
  const admin = new WebClient(svc.baseUrl);
  await admin.signIn(email, await createUser(svc, email, 'admin'));
  const csrf = WebClient.csrfOf(await (await admin.fetch('/alerts')).text());
  const res = await admin.post('/alerts', { _csrf: csrf, ...fields });
  expect(res.status).toBe(400);
  return res.text();
}

const webhook = (url: string) => ({ type: 'webhook' as const, url });
const testRule = (svc: TestService, id: string) => svc.api(`/v1/alerts/${id}/test`, { method: 'POST' });

describe('destinations that are not public (allow_private_destinations: false)', () => {
  let svc: TestService;
  let hook: Receiver;
  let counter: Awaited<ReturnType<typeof startConnectionCounter>>;
  let rebindAnswer = [PUBLIC_V4];
  const dns = tableResolver({
    'ten.example': ['10.0.0.5'],
    'cgnat.example': ['100.64.1.1'],
    'ula.example': ['fd12:3456::1'],
    'mixed.example': [PUBLIC_V4, '192.168.0.10'],
    'mapped.example': ['::ffff:172.16.5.4'],
    'nat64.example': ['64:ff9b::a9fe:a9fe'],
    'metadata.example': ['169.254.169.254'],
    'multicast.example': ['224.0.0.251'],
    'loop6.example': ['::1'],
    'public.example': [PUBLIC_V4, PUBLIC_V6],
    'rebind.example': () => rebindAnswer,
    // Public when the rule is saved; then no answer at all.
    'slow-dns.example': () => (dns.asked.filter((name) => name === 'slow-dns.example').length > 1 ? new Promise<string[]>(() => undefined) : [PUBLIC_V4]),
  });

  beforeAll(async () => {
    [svc, hook, counter] = await Promise.all([
      // Three attempts: a refusal must be final, a timeout is retried.
      startService({ yaml: alertingYaml({ allowPrivate: false, attempts: 3, timeoutMs: 10_000, connectTimeoutMs: 300 }) }),
      startReceiver(),
      startConnectionCounter(),
    ]);
    alertsOf(svc.service.host).destinations.policy.resolve = dns.resolve;
  });
  afterAll(async () => {
    await svc.stop();
    await Promise.all([hook.close(), counter.close()]);
  });

  const post = (actions: unknown[], extra: Record<string, unknown> = {}) =>
    svc.api('/v1/alerts', { method: 'POST', body: JSON.stringify({ project_id: 'default', name: 'x', type: 'new_issue', actions, ...extra }) });

  const REFUSED = [
    // IPv4: private, CGNAT (incl. Alibaba's metadata), loopback (in any spelling the URL parser accepts), "this network", link-local, multicast, broadcast, reserved, documentation, benchmarking
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://100.127.255.254/',
    'http://100.100.100.200/',
    'http://127.0.0.1:8080/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0.0.0.0/',
    'http://0.1.2.3/',
    'http://169.254.169.254/latest/meta-data/',
    'http://224.0.0.1/',
    'http://239.255.255.250/',
    'http://255.255.255.255/',
    'http://240.0.0.1/',
    'http://192.0.2.1/',
    'http://198.18.0.1/',
    'http://192.0.0.8/',
    // IPv6: loopback, unspecified, link-local, unique-local (incl. AWS metadata), site-local, multicast, documentation, discard, Teredo
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/',
    'http://[100::1]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    // IPv4 ranges seen through IPv6: mapped, compatible, NAT64, 6to4
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://[64:ff9b::169.254.169.254]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[2002:c0a8:101::1]/',
    // Names: localhost, and names whose addresses (any of them) are not public
    'http://localhost:9/',
    'http://api.localhost/',
    'http://LOCALHOST./',
    'http://ten.example/hook',
    'http://cgnat.example/',
    'http://ula.example/',
    'http://mixed.example/',
    'http://mapped.example/',
    'http://nat64.example/',
    'https://metadata.example/',
    'http://multicast.example/',
    'http://loop6.example/',
  ];

  it('refuses every non-public address and every name that resolves to one when a rule is saved: 400 with the field path', async () => {
    for (let i = 0; i < REFUSED.length; i += 10) {
      const urls = REFUSED.slice(i, i + 10);
      const actions = urls.map((url, j) => (j % 2 ? { type: 'slack', url } : webhook(url)));
      const body = await expectError(await post(actions), 400, 'validation_failed');
      expect(body.error.details.map((d) => d.path)).toEqual(urls.map((_url, j) => `actions[${j}].url`));
      for (const detail of body.error.details) expect(detail.message).toMatch(/allow_private_destinations: true/);
      expect(body.error.message).toMatch(/allow_private_destinations/);
    }
    // A name's addresses are not told back: that would map the inside of a network for whoever asks.
    const named = await expectError(await post([webhook('http://ten.example/hook')]), 400, 'validation_failed');
    expect(named.error.details[0].message).toMatch(/^ten\.example resolves to an address that is not public/);
    expect(JSON.stringify(named)).not.toContain('10.0.0.5');
    expect(dns.asked).toContain('mixed.example');
  });

  it('saves public addresses, names that resolve to them, and names that do not resolve (yet)', async () => {
    const urls = [
      `http://${PUBLIC_V4}/hook`,
      `https://[${PUBLIC_V6}]/`,
      `http://[::ffff:${PUBLIC_V4}]/`,
      'http://[64:ff9b::5db8:d70e]/',
      'https://public.example/hook',
      'https://nowhere.example/hook',
    ];
    // Muted and deleted at once: these rules never fire, so nothing is ever sent to those addresses.
    const res = await post(urls.map(webhook), { enabled: false });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect((await svc.api(`/v1/alerts/${id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('checks new actions on PATCH, and still lets a stored rule be muted', async () => {
    const rule = await createRule(svc, { name: 'Log only', type: 'new_issue', actions: [{ type: 'log' }] });
    const bad = await expectError(
      await svc.api(`/v1/alerts/${rule.id}`, { method: 'PATCH', body: JSON.stringify({ actions: [{ type: 'log' }, webhook('http://192.168.0.1/')] }) }),
      400,
      'validation_failed',
    );
    expect(bad.error.details.map((d) => d.path)).toEqual(['actions[1].url']);
    // A rule stored before the check (or replicated from another node) is refused at delivery, and can still be muted.
    const org = (await catalogOf(svc.service.host).project('default'))!.org_id;
    const stored = await alertsOf(svc.service.host).rules.create(
      {
        project_id: 'default',
        name: 'Stored',
        type: 'new_issue',
        conditions: {},
        actions: [webhook(`${hook.url}/stored`)],
        environment: null,
        enabled: true,
        frequency: '0s',
      },
      { dataset: 'live', orgId: org },
    );
    expect((await testRule(svc, stored.id)).status).toBe(202);
    const view = await ruleUntil(svc, stored.id, (r) => r.firings[0]?.deliveries[0]?.status === 'failed');
    expect(view.firings[0].deliveries[0]).toMatchObject({ status: 'failed', attempts: 1, last_error: 'refused' });
    expect(hook.requests.filter((r) => r.path === '/stored')).toHaveLength(0);
    const muted = await svc.api(`/v1/alerts/${stored.id}`, { method: 'PATCH', body: JSON.stringify({ enabled: false }) });
    expect(muted.status).toBe(200);
  });

  it('refuses at delivery a name that resolved to a public address when saved and to a private one now (DNS rebinding), without connecting', async () => {
    rebindAnswer = [PUBLIC_V4];
    const rule = await createRule(svc, { name: 'Rebinding', type: 'new_issue', actions: [webhook(`http://rebind.example:${counter.port}/hook`)] });
    const askedAtSave = dns.asked.filter((name) => name === 'rebind.example').length;
    expect(askedAtSave).toBe(1);
    rebindAnswer = ['127.0.0.1']; // where the connection counter listens
    expect((await testRule(svc, rule.id)).status).toBe(202);
    const view = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries[0]?.status === 'failed');
    expect(view.firings[0].deliveries[0]).toMatchObject({ status: 'failed', attempts: 1, last_error: 'refused' });
    expect(dns.asked.filter((name) => name === 'rebind.example').length).toBeGreaterThan(askedAtSave);
    expect(counter.connections()).toBe(0);
  });

  it('refuses the same destinations when an admin creates a rule in the web app', async () => {
    const page = await refusedInWebApp(svc, { project_id: 'default', name: 'Inside', type: 'new_issue', 'webhook.url': 'http://ten.example/hook' });
    expect(page).toContain('<code>actions[0].url</code>');
    expect(page).toContain('allow_private_destinations');
  });

  it('gives up on a destination that cannot be resolved and connected to within connect_timeout_ms, long before timeout_ms', async () => {
    const rule = await createRule(svc, { name: 'Slow DNS', type: 'new_issue', actions: [webhook('https://slow-dns.example/hook')] });
    const started = Date.now();
    expect((await testRule(svc, rule.id)).status).toBe(202);
    const view = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries[0]?.status === 'failed', 8_000);
    expect(view.firings[0].deliveries[0]).toMatchObject({ status: 'failed', attempts: 3, last_error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(8_000); // timeout_ms is 10 s; connect_timeout_ms 300 ms
  });
});

describe('delivery errors, as rule owners see them', () => {
  let svc: TestService;
  let hook: Receiver;
  let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;

  beforeAll(async () => {
    [svc, hook, hanging] = await Promise.all([
      startService({ yaml: alertingYaml({ attempts: 1, timeoutMs: 800, connectTimeoutMs: 400 }) }),
      startReceiver(),
      startHangingReceiver(),
    ]);
  });
  afterAll(async () => {
    await svc.stop();
    await Promise.all([hook.close(), hanging.close()]);
  });

  it('reports refused, timeout, http_<status> or unreachable, never the socket error', async () => {
    // A port nothing listens on: bound, then closed.
    const closed = await startConnectionCounter();
    await closed.close();
    hook.respond('/fails', 500);
    hook.respond('/gone', 404);
    const rule = await createRule(svc, {
      name: 'Errors',
      type: 'new_issue',
      actions: [webhook(`${hook.url}/fails`), webhook(`${hook.url}/gone`), webhook(`http://127.0.0.1:${closed.port}/`), webhook(`${hanging.url}/`)],
    });
    expect((await testRule(svc, rule.id)).status).toBe(202);
    const view = await ruleUntil(svc, rule.id, (r) => r.firings[0]?.deliveries.every((d) => d.status === 'failed'));
    expect(view.firings[0].deliveries.map((d) => d.last_error)).toEqual(['http_500', 'http_404', 'unreachable', 'timeout']);
    expect(JSON.stringify(view)).not.toMatch(/ECONNREFUSED|socket|connect/i);

    // In the web app, attempts and errors are for admins (who manage rules); a member sees the status.
    const [adminPassword, memberPassword] = await Promise.all([createUser(svc, 'owner@example.com', 'admin'), createUser(svc, 'viewer@example.com', 'member')]);
    const admin = new WebClient(svc.baseUrl);
    await admin.signIn('owner@example.com', adminPassword);
    const member = new WebClient(svc.baseUrl);
    await member.signIn('viewer@example.com', memberPassword);
    const adminPage = await (await admin.fetch('/alerts')).text();
    const memberPage = await (await member.fetch('/alerts')).text();
    const deliveries = (page: string) => /<ul class="deliveries">([\s\S]*?)<\/ul>/.exec(page)?.[1] ?? '';
    expect(deliveries(adminPage)).toContain('webhook: <strong class="delivery-failed">failed</strong> after 1 attempt (<span class="muted">http_500</span>)');
    expect(deliveries(memberPage)).toContain('webhook: <strong class="delivery-failed">failed</strong>');
    expect(deliveries(memberPage)).not.toMatch(/http_500|unreachable|timeout|attempt/);
  });
});

describe('limits on rules, actions and test notifications; slow receivers', () => {
  let svc: TestService;
  let hook: Receiver;
  const hanging: Array<Awaited<ReturnType<typeof startHangingReceiver>>> = [];

  beforeAll(async () => {
    [svc, hook] = await Promise.all([
      startService({ yaml: alertingYaml({ rulesPerProject: 3, testsPerMinute: 2, timeoutMs: 10_000, connectTimeoutMs: 3_000 }) }),
      startReceiver(),
    ]);
    for (const id of ['capped', 'race', 'quiz', 'other', 'slow-one', 'slow-many', 'prompt']) await catalogOf(svc.service.host).createProject({ id, name: id });
    hanging.push(...(await Promise.all(Array.from({ length: 16 }, startHangingReceiver))));
  });
  afterAll(async () => {
    await svc.stop();
    await Promise.all([hook.close(), ...hanging.map((h) => h.close())]);
  });

  const logRule = (project_id: string, name = 'r') =>
    svc.api('/v1/alerts', { method: 'POST', body: JSON.stringify({ project_id, name, type: 'new_issue', actions: [{ type: 'log' }] }) });

  it('caps the rules of a project (409, naming the setting), even when they are created at once', async () => {
    for (let i = 0; i < 3; i++) expect((await logRule('capped')).status).toBe(201);
    const full = await expectError(await logRule('capped'), 409, 'conflict');
    expect(full.error.message).toMatch(/project capped already has 3 alert rules.*rules_per_project/);
    expect(full.error.details.map((d) => d.path)).toEqual(['project_id']);

    const statuses = (await Promise.all(Array.from({ length: 6 }, () => logRule('race')))).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409]);

    // Moving a rule into a full project is refused too; deleting one makes room.
    const elsewhere = (await (await logRule('other')).json()) as { id: string };
    await expectError(await svc.api(`/v1/alerts/${elsewhere.id}`, { method: 'PATCH', body: JSON.stringify({ project_id: 'capped' }) }), 409, 'conflict');
    const [first] = ((await (await svc.api('/v1/alerts?project_id=capped')).json()) as { data: Array<{ id: string }> }).data;
    expect((await svc.api(`/v1/alerts/${first.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await logRule('capped')).status).toBe(201);
  });

  it('caps the rules of a project in the web app too', async () => {
    const page = await refusedInWebApp(svc, { project_id: 'capped', name: 'One more', type: 'new_issue', log: 'on' });
    expect(page).toContain('<code>project_id</code>');
    expect(page).toContain('already has 3 alert rules');
  });

  it('caps the actions of a rule', async () => {
    const actions = Array.from({ length: 11 }, () => ({ type: 'log' }));
    const body = await expectError(
      await svc.api('/v1/alerts', { method: 'POST', body: JSON.stringify({ project_id: 'other', name: 'many', type: 'new_issue', actions }) }),
      400,
      'validation_failed',
    );
    expect(body.error.details).toEqual([{ path: 'actions', message: 'must be a list of 1 to 10 actions' }]);
  });

  it('rate-limits test notifications per project: 429 with Retry-After', async () => {
    const rule = (await (await logRule('quiz')).json()) as { id: string };
    expect((await testRule(svc, rule.id)).status).toBe(202);
    expect((await testRule(svc, rule.id)).status).toBe(202);
    const res = await testRule(svc, rule.id);
    const retryAfter = Number(res.headers.get('retry-after'));
    const body = await expectError(res, 429, 'rate_limited');
    expect(body.error.message).toMatch(/test_notifications_per_minute/);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // Another project is not held back.
    const other = (await (await logRule('other', 'other quiz')).json()) as { id: string };
    expect((await testRule(svc, other.id)).status).toBe(202);
  });

  it("delivers another project's notification at once while 16 requests hang on one receiver, and on 16 receivers", async () => {
    const [one] = hanging;
    // Project slow-one: 16 notifications to one receiver that never answers (2 rules of 8 actions).
    for (let i = 0; i < 2; i++) {
      const rule = await createRule(svc, {
        project_id: 'slow-one',
        name: `one ${i}`,
        type: 'new_issue',
        actions: Array.from({ length: 8 }, () => webhook(`${one.url}/`)),
      });
      expect((await testRule(svc, rule.id)).status).toBe(202);
    }
    // Project slow-many: one notification to each of 16 receivers that never answer.
    for (let i = 0; i < 2; i++) {
      const urls = hanging.slice(i * 8, i * 8 + 8).map((h) => `${h.url}/many`);
      const rule = await createRule(svc, { project_id: 'slow-many', name: `many ${i}`, type: 'new_issue', actions: urls.map(webhook) });
      expect((await testRule(svc, rule.id)).status).toBe(202);
    }
    const hangingOn = (path: string) => hanging.reduce((n, h) => n + h.received.filter((r) => r.url === path).length, 0);
    await until(() => hangingOn('/') >= 2 && hangingOn('/many') >= 8, 5_000, 'the hanging receivers to be called');

    const rule = await createRule(svc, { project_id: 'prompt', name: 'Prompt', type: 'new_issue', actions: [webhook(`${hook.url}/prompt`)] });
    const asked = Date.now();
    expect((await testRule(svc, rule.id)).status).toBe(202);
    await hook.waitFor(1, (r) => r.path === '/prompt', 2_000); // timeout_ms is 10 s: nothing has timed out yet
    expect(Date.now() - asked).toBeLessThan(2_000);

    // No more than per_destination (2) requests to the one receiver, per_project (8) for the other project.
    expect(one.received.filter((r) => r.url === '/')).toHaveLength(2);
    expect(hangingOn('/many')).toBe(8);
    // The receiver has it; the outbox records the answer right after.
    await expect
      .poll(async () => (await getRule(svc, rule.id)).firings[0]?.deliveries[0], { timeout: 2_000 })
      .toMatchObject({ status: 'delivered', attempts: 1 });
  });
});
