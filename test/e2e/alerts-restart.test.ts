// Alerting across kill -9, with the built `faultline` command: a notification whose receiver was
// down when the service died arrives once after the restart, and a firing error_spike rule neither
// repeats nor is lost (its window is rebuilt from the stored events). Also `faultline alerts`.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alertingYaml, errorEvent, type RuleView } from '../support/alerts.js';
import { childEnv, runCli, startProcess, type RunningProcess } from '../support/process.js';
import { startReceiver } from '../support/receiver.js';
import { tempDir } from '../support/service.js';

const dir = tempDir('faultline-alerts-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function call(proc: RunningProcess, key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(proc.baseUrl + path, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('alerting across kill -9', () => {
  it('delivers what was pending once the receiver is back, and does not repeat a firing', async () => {
    // A port with nobody listening: the receiver starts on it only after the restart.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();
    const config = join(dir, 'alerting.yaml');
    writeFileSync(config, alertingYaml({ attempts: 50, evaluationMs: 200 }));
    const data = join(dir, 'data');
    const first = await startProcess(data, ['--config', config]);
    const key = first.liveKey as string;
    const url = `http://127.0.0.1:${port}`;
    const create = async (rule: Record<string, unknown>) =>
      (await (await call(first, key, '/v1/alerts', { method: 'POST', body: JSON.stringify({ project_id: 'default', ...rule }) })).json()) as RuleView;
    const issueRule = await create({ name: 'New', type: 'new_issue', actions: [{ type: 'webhook', url: `${url}/new`, secret: 'k' }] });
    const spikeRule = await create({
      name: 'Spike',
      type: 'error_spike',
      conditions: { threshold: 2, window: '1h' },
      actions: [{ type: 'webhook', url: `${url}/spike` }],
    });

    // The CLI through the running service's admin socket.
    const list = await runCli(['alerts', 'list', '--config', config], childEnv(data));
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(issueRule.id);
    expect(list.stdout).toMatch(/error_spike\s+Spike/);

    for (let i = 0; i < 3; i++)
      expect((await call(first, key, '/v1/events', { method: 'POST', body: JSON.stringify(errorEvent({}, 'CrashError')) })).status).toBe(202);
    const rule = (id: string) => async () => (await (await call(first, key, `/v1/alerts/${id}`)).json()) as RuleView;
    // Both fired; the receiver is down, so their deliveries are pending with failed attempts.
    await until(rule(issueRule.id), (r) => (r.firings[0]?.deliveries[0]?.attempts ?? 0) >= 1);
    await until(rule(spikeRule.id), (r) => r.state === 'firing' && (r.firings[0]?.deliveries[0]?.attempts ?? 0) >= 1);
    // A rule that fired says so, read back by the API and by the CLI: an issue rule too (it fires
    // from the processor, not the evaluator) — firing for its frequency (30m by default), since when.
    const fired = await rule(issueRule.id)();
    expect(fired).toMatchObject({ state: 'firing', last_fired_at: expect.any(String) });
    expect(Date.parse(fired.last_fired_at as string)).toBe(Date.parse(fired.firings[0].fired_at));
    expect((await rule(spikeRule.id)()).last_fired_at).toEqual(expect.any(String));
    const listed = await runCli(['alerts', 'list', '--json', '--config', config], childEnv(data));
    expect(listed.code, listed.stderr).toBe(0);
    const rules = JSON.parse(listed.stdout) as Array<{ id: string; state: string; last_fired_at: number | string | null }>;
    for (const id of [issueRule.id, spikeRule.id]) expect(rules.find((r) => r.id === id)).toMatchObject({ state: 'firing', last_fired_at: expect.anything() });
    const table = await runCli(['alerts', 'list', '--config', config], childEnv(data));
    expect(table.stdout).toMatch(new RegExp(`${issueRule.id}.*new_issue\\s+New\\s+yes\\s+firing\\s+webhook\\s+\\d{4}-\\d\\d-\\d\\dT`));
    const test = await runCli(['alerts', 'test', issueRule.id, '--config', config], childEnv(data));
    expect(test.code, test.stderr).toBe(0);
    expect(test.stdout).toMatch(/Queued test notification \w+ through 1 action/);

    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const hook = await startReceiver(port);
    const second = await startProcess(data, ['--config', config]);
    try {
      const [notification] = await hook.waitFor(1, (r) => r.path === '/new' && r.json.state === 'firing');
      expect(notification.json).toMatchObject({ rule: { id: issueRule.id }, issue: { title: expect.stringContaining('CrashError') } });
      expect(notification.headers['x-faultline-signature']).toMatch(/^sha256=/);
      await hook.waitFor(1, (r) => r.path === '/spike');
      await hook.waitFor(1, (r) => r.path === '/new' && r.json.state === 'test');
      // Evaluations after the restart see the rebuilt window (3 events > 2): still firing, no repeat.
      const since = Date.now();
      const after = await until(
        async () => (await (await call(second, key, `/v1/alerts/${spikeRule.id}`)).json()) as RuleView,
        (r) => r.last_evaluated_at !== null && Date.parse(r.last_evaluated_at) > since + 500,
      );
      expect(after).toMatchObject({ state: 'firing', last_value: 3 });
      expect(after.firings).toHaveLength(1);
      expect(hook.requests.filter((r) => r.path === '/spike')).toHaveLength(1);
      expect(hook.requests.filter((r) => r.path === '/new' && r.json.state === 'firing')).toHaveLength(1);
      // The firing record survived the kill.
      expect((await (await call(second, key, `/v1/alerts/${issueRule.id}`)).json()) as RuleView).toMatchObject({ last_fired_at: fired.last_fired_at });
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      await hook.close();
    }
  });
});
