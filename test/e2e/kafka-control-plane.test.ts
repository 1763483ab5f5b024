// The shared control plane (issue #15): a compacted faultline.catalog topic every node consumes
// into its catalog. A project and key created with the CLI on the query node authenticate on the
// ingest node; an issue resolved through the query node regresses on the worker; a revocation made
// on the ingest node holds on the query node; a node started afterwards replays all of it.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hashedIngestId } from '../../extensions/catalog/catalog.js';
import { startMockBroker, startRoleNodes, type MockBroker } from '../support/kafka.js';
import { roleYaml, until } from '../support/kafka-roles.js';
import { childEnv, runCli } from '../support/process.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

describe('the shared control plane over Kafka', () => {
  let broker: MockBroker | undefined;
  const services: TestService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
  });

  it('replicates keys, projects and issue statuses to every node, and to a node that starts late', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, worker, query, seeded, env } = await startRoleNodes(broker.brokers, 1);
    const keys = { live: seeded.liveKey, test: seeded.testKey };
    services.push(ingest, worker, query);

    // A project and a key made with the CLI against the query node...
    expect((await runCli(['projects', 'create', '--id', 'shop', '--name', 'Shop'], childEnv(seeded.dirs[2]))).code).toBe(0);
    const created = await runCli(['keys', 'create', '--project', 'shop', '--name', 'replicated'], childEnv(seeded.dirs[2]));
    expect(created.code).toBe(0);
    const secret = created.stdout.trim().split('\n').pop()!;
    const keyId = /key_[A-Za-z0-9]+/.exec(created.stdout)![0];
    // ...authenticate on the ingest node within seconds.
    const post = (key: string, body: Record<string, unknown>) => ingest.api('/v1/events', { method: 'POST', key, body: JSON.stringify(body) });
    await until('the new key on the ingest node', async () => ((await post(secret, fullEvent({ id: randomUUID() }))).status === 202 ? true : undefined));
    // With the same ingest id everywhere: hashed from the project id, not the creating node's max + 1.
    for (const node of [ingest, query]) {
      const projects = (await (await node.api('/v1/projects')).json()) as { data: Array<{ id: string; ingest_id: number }> };
      expect(projects.data.find((p) => p.id === 'shop')?.ingest_id).toBe(hashedIngestId('shop'));
    }

    // An issue resolved through the query node is resolved on the worker: the next event regresses it.
    const first = randomUUID();
    expect((await post(seeded.liveKey, fullEvent({ id: first, timestamp: new Date().toISOString() }))).status).toBe(202);
    const issueId = await until('the event through the query node', async () => {
      const res = await query.api(`/v1/events/${first}`);
      return res.status === 200 ? ((await res.json()) as { issue_id: string }).issue_id : undefined;
    });
    const resolved = await query.api(`/v1/issues/${issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) });
    expect(resolved.status).toBe(200);
    const status = async (node: TestService) => ((await (await node.api(`/v1/issues/${issueId}`)).json()) as { status: string }).status;
    await until('the resolution on the worker', async () => ((await status(worker)) === 'resolved' ? true : undefined));
    expect((await post(seeded.liveKey, fullEvent({ id: randomUUID(), timestamp: new Date().toISOString() }))).status).toBe(202);
    await until('the regression, seen on the query node', async () => ((await status(query)) === 'regressed' ? true : undefined));

    // A revocation made on the ingest node holds on the query node.
    expect((await runCli(['keys', 'revoke', keyId], childEnv(seeded.dirs[0]))).code).toBe(0);
    await until('the revocation on the query node', async () => ((await query.api('/v1/projects', { key: secret })).status === 401 ? true : undefined));

    // A node that starts afterwards replays the compacted topic.
    const late = await startService({ yaml: roleYaml('query'), dataDir: seeded.dirs[3], keys, env });
    services.push(late);
    await until('the project on the late node', async () => {
      const body = (await (await late.api('/v1/projects')).json()) as { data: Array<{ id: string }> };
      return body.data.some((p) => p.id === 'shop') ? true : undefined;
    });
    await until('the issue status on the late node', async () => ((await status(late)) === 'regressed' ? true : undefined));
    await until('the revocation on the late node', async () => ((await late.api('/v1/projects', { key: secret })).status === 401 ? true : undefined));
  });
});
