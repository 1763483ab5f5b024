// Merge and unmerge on the Kafka roles (issue #26): a merge made on the query node reaches the
// worker through the control plane, which then routes new events of the source's fingerprint to
// the target (its regression of the resolved target is the worker's decision, recorded in the
// target's activity and replicated back); an unmerge moves the events back on every node.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockBroker, startRoleNodes, type MockBroker } from '../support/kafka.js';
import { eventIssueOn, until } from '../support/kafka-roles.js';
import { fullEvent, type TestService } from '../support/service.js';

describe('merge and unmerge on the Kafka roles', () => {
  let broker: MockBroker | undefined;
  const services: TestService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
  });

  it('replicates merges to the worker, which routes new events of the source to the target', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, worker, query, seeded } = await startRoleNodes(broker.brokers);
    services.push(ingest, worker, query);
    const post = async (name: string) => {
      const id = randomUUID();
      const event = fullEvent({
        id,
        timestamp: new Date().toISOString(),
        exception: { type: `${name}Error`, value: 'boom', stacktrace: [{ filename: `src/${name}.js`, function: name, lineno: 1, colno: 1, in_app: true }] },
      });
      const res = await ingest.api('/v1/events', { method: 'POST', key: seeded.liveKey, body: JSON.stringify(event) });
      expect(res.status).toBe(202);
      return id;
    };
    const count = async (node: TestService, issue: string) => {
      const res = await node.api(`/v1/issues/${issue}`);
      return res.status === 200 ? ((await res.json()) as { count: number; id: string }) : undefined;
    };

    const target = await eventIssueOn(query, await post('Target'));
    const source = await eventIssueOn(query, await post('Source'));
    expect(target).not.toBe(source);
    expect((await query.api(`/v1/issues/${target}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) })).status).toBe(200);
    const merged = await query.api(`/v1/issues/${target}/merge`, { method: 'POST', body: JSON.stringify({ issue_ids: [source] }) });
    expect(merged.status).toBe(200);
    expect(((await merged.json()) as { count: number }).count).toBe(2);

    // The worker learns the merge and the resolution from the control plane.
    await until('the merge on the worker', async () => ((await count(worker, source))?.id === target ? true : undefined));
    await until('the resolution on the worker', async () => {
      const res = await worker.api(`/v1/issues/${target}`);
      return ((await res.json()) as { status: string }).status === 'resolved' ? true : undefined;
    });
    // A new event of the source's fingerprint lands in the target and regresses it: decided on the worker.
    const late = await post('Source');
    expect(await eventIssueOn(query, late)).toBe(target);
    await until('the count on the query node', async () => ((await count(query, target))?.count === 3 ? true : undefined));
    const regressed = await until('the regression in the activity on the query node', async () => {
      const body = (await (await query.api(`/v1/issues/${target}/activity`)).json()) as { data: Array<{ kind: string; data: { event_id?: string } }> };
      return body.data.find((e) => e.kind === 'regressed');
    });
    expect(regressed.data.event_id).toBe(late);

    // Unmerged on the query node: the source's events (the late one too) are its own again, on every node.
    const prints = (await (await query.api(`/v1/issues/${target}/fingerprints`)).json()) as { data: Array<{ fingerprint: string; count: number }> };
    expect(prints.data.find((p) => p.fingerprint === source)?.count).toBe(2);
    const unmerged = await query.api(`/v1/issues/${target}/unmerge`, { method: 'POST', body: JSON.stringify({ fingerprints: [source] }) });
    expect(unmerged.status).toBe(200);
    expect(((await unmerged.json()) as { id: string }).id).toBe(source);
    expect((await count(query, source))?.count).toBe(2);
    expect(await eventIssueOn(query, late)).toBe(source);
    await until('the unmerge on the worker', async () => ((await count(worker, source))?.id === source ? true : undefined));
    const after = await post('Source');
    expect(await eventIssueOn(query, after)).toBe(source);
    await until('the third event of the source', async () => ((await count(query, source))?.count === 3 ? true : undefined));
    expect((await count(query, target))?.count).toBe(1);
  });
});
