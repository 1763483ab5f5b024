// Triage on the Kafka roles: a bulk change made through the query node (statuses and an assignee)
// reaches the worker over the shared control plane, like a single PATCH does; the worker then
// decides on the new statuses (a resolved issue's next event regresses it).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockBroker, startRoleNodes, type MockBroker } from '../support/kafka.js';
import { until } from '../support/kafka-roles.js';
import { fullEvent, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

interface Issue {
  status: string;
  assignee: { email: string } | null;
}

describe('triage on the Kafka roles', () => {
  let broker: MockBroker | undefined;
  const services: TestService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
  });

  it('replicates a bulk status and assignee change to the worker', { timeout: 120_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, worker, query, seeded } = await startRoleNodes(broker.brokers);
    services.push(ingest, worker, query);
    await createUser(query, 'triager@example.com', 'member');

    const send = async (name: string) => {
      const id = randomUUID();
      const event = fullEvent({
        id,
        timestamp: new Date().toISOString(),
        exception: { type: `${name}Error`, value: name, stacktrace: [{ filename: `${name}.js`, function: name, lineno: 1 }] },
      });
      expect((await ingest.api('/v1/events', { method: 'POST', key: seeded.liveKey, body: JSON.stringify(event) })).status).toBe(202);
      return id;
    };
    const issueOf = (eventId: string) =>
      until(`event ${eventId} on the query node`, async () => {
        const res = await query.api(`/v1/events/${eventId}`);
        return res.status === 200 ? ((await res.json()) as { issue_id: string }).issue_id : undefined;
      });
    const issues = [await issueOf(await send('Left')), await issueOf(await send('Right'))];

    const res = await query.api(`/v1/issues?project_id=default&id=${issues[0]}&id=${issues[1]}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'resolved', assignee: 'triager@example.com' }),
    });
    expect(await res.json()).toEqual({ updated: 2 });

    const read = async (node: TestService, id: string) => (await (await node.api(`/v1/issues/${id}`)).json()) as Issue;
    for (const id of issues)
      await until(`issue ${id} resolved and assigned on the worker`, async () => {
        const issue = await read(worker, id);
        return issue.status === 'resolved' && issue.assignee?.email === 'triager@example.com' ? true : undefined;
      });

    // The worker decides on the replicated status: the next event of a resolved issue regresses it.
    await send('Left');
    await until('the regression, seen on the query node', async () => ((await read(query, issues[0])).status === 'regressed' ? true : undefined));
    expect((await read(query, issues[1])).status).toBe('resolved');
  });
});
