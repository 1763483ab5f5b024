// "Ignore until" on the Kafka roles: the condition set through the query node reaches the worker
// with the status (control plane), the worker counts the events it processes and returns the
// issue, and the query node sees it unresolved again.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockBroker, startRoleNodes, type MockBroker } from '../support/kafka.js';
import { until } from '../support/kafka-roles.js';
import { fullEvent, type TestService } from '../support/service.js';

describe('ignore until on the Kafka roles', () => {
  let broker: MockBroker | undefined;
  const services: TestService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
  });

  it('is decided on the worker and replicated like statuses', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, worker, query } = await startRoleNodes(broker.brokers);
    services.push(ingest, worker, query);
    const post = async () => {
      const id = randomUUID();
      const res = await ingest.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date().toISOString() })) });
      expect(res.status).toBe(202);
      return id;
    };
    const first = await post();
    const issueId = await until('the event through the query node', async () => {
      const res = await query.api(`/v1/events/${first}`);
      return res.status === 200 ? ((await res.json()) as { issue_id: string }).issue_id : undefined;
    });
    const issue = async (node: TestService) => (await (await node.api(`/v1/issues/${issueId}`)).json()) as { status: string; ignore_until: unknown };
    const ignored = await query.api(`/v1/issues/${issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'ignored', ignore_until: { count: 2 } }) });
    expect(ignored.status).toBe(200);
    const onWorker = await until('the condition on the worker', async () => {
      const seen = await issue(worker);
      return seen.status === 'ignored' && seen.ignore_until !== null ? seen : undefined;
    });
    expect(onWorker.ignore_until).toMatchObject({ count: 2 });
    const second = await post();
    await until('the second event on the query node', async () => ((await query.api(`/v1/events/${second}`)).status === 200 ? true : undefined));
    expect((await issue(query)).status).toBe('ignored');
    await post();
    const back = await until('the escalation on the query node', async () => {
      const seen = await issue(query);
      return seen.status === 'unresolved' ? seen : undefined;
    });
    expect(back.ignore_until).toBeNull();
  });
});
