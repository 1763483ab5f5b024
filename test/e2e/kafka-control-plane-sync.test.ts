// The shared control plane beyond keys and statuses (issue #15): alert rules and source-map
// metadata replicate to every node, and a change made while the broker is down survives a kill -9
// of the node that made it (the durable outbox in the catalog).
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../extensions/duckdb/database.js';
import type { AppBuilds } from '../support/app-builds.js';
import { startMockBroker, seededDataDirs, startRoleNodes, type MockBroker } from '../support/kafka.js';
import { roleEnv, roleYaml, until } from '../support/kafka-roles.js';
import { childEnv, runCli, startProcess, type RunningProcess } from '../support/process.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import {
  appBuilds,
  appSites,
  buildFiles,
  expectFramesAt,
  expectUploaded,
  jsEvent,
  postEvent,
  runInNode,
  uploadJson,
  V8_CHAIN,
} from '../support/symbolication.js';

describe('the shared control plane: alert rules, source maps, the durable outbox', () => {
  let broker: MockBroker | undefined;
  const services: TestService[] = [];
  const processes: RunningProcess[] = [];

  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(services.map((s) => s.stop()));
    broker?.resume();
    await broker?.stop();
  });

  it(
    'replicates alert rules (create, mute, delete) and source-map bundles (symbolicated by the worker, read on the query node)',
    { timeout: 120_000 },
    async () => {
      const builds: AppBuilds = appBuilds();
      const report = await runInNode(builds.esbuild);
      broker = await startMockBroker();
      const { ingest, worker, query, seeded } = await startRoleNodes(broker.brokers);
      services.push(ingest, worker, query);
      const nodes = { ingest, worker, query };
      const project = seeded.projectId;

      // An alert rule created on the query node is listed on every node.
      const created = await query.api('/v1/alerts', {
        method: 'POST',
        body: JSON.stringify({ project_id: project, name: 'Replicated', type: 'new_issue', actions: [{ type: 'log' }] }),
      });
      expect(created.status).toBe(201);
      const rule = (await created.json()) as { id: string };
      const ruleOn = async (node: TestService) => {
        const res = await node.api(`/v1/alerts/${rule.id}`);
        return res.status === 200 ? ((await res.json()) as { name: string; enabled: boolean }) : res.status === 404 ? null : undefined;
      };
      for (const [name, node] of Object.entries(nodes))
        await until(`the rule on the ${name} node`, async () => ((await ruleOn(node))?.name === 'Replicated' ? true : undefined));
      const listed = (await (await ingest.api(`/v1/alerts?project_id=${project}`)).json()) as { data: Array<{ id: string }> };
      expect(listed.data.map((r) => r.id)).toContain(rule.id);

      // Muted on the ingest node: muted on the worker, which evaluates it.
      const muted = await ingest.api(`/v1/alerts/${rule.id}`, { method: 'PATCH', body: JSON.stringify({ enabled: false, name: 'Muted' }) });
      expect(muted.status).toBe(200);
      for (const [name, node] of Object.entries(nodes))
        await until(`the mute on the ${name} node`, async () => {
          const seen = await ruleOn(node);
          return seen?.enabled === false && seen.name === 'Muted' ? true : undefined;
        });

      // Deleted on the worker: gone everywhere.
      expect((await worker.api(`/v1/alerts/${rule.id}`, { method: 'DELETE' })).status).toBe(204);
      for (const [name, node] of Object.entries(nodes))
        await until(`the deletion on the ${name} node`, async () => ((await ruleOn(node)) === null ? true : undefined));

      // A build's map uploaded to the query node symbolicates an event posted to the ingest node (the
      // worker runs the symbolication processor), read back through the query node.
      const release = 'shop@9.9.9';
      const bundle = await expectUploaded(uploadJson(query.api, { project_id: project, release }, buildFiles(builds.esbuild)));
      const bundleOn = async (node: TestService) => {
        const res = await node.api(`/v1/sourcemaps/${bundle.id}`);
        return res.status === 200 ? ((await res.json()) as { files: unknown[] }) : res.status === 404 ? null : undefined;
      };
      for (const [name, node] of Object.entries(nodes))
        await until(`the bundle on the ${name} node`, async () => ((await bundleOn(node))?.files.length === 2 ? true : undefined));
      const { id } = await postEvent(ingest.api, jsEvent(report, release));
      const event = await until('the symbolicated event on the query node', async () => {
        const res = await query.api(`/v1/events/${id}`);
        return res.status === 200 ? ((await res.json()) as Record<string, any>) : undefined;
      });
      expectFramesAt(event, appSites(V8_CHAIN));
      expect(event.processing_errors).toEqual([]);

      // Deleted on the ingest node: gone on the others.
      expect((await ingest.api(`/v1/sourcemaps/${bundle.id}`, { method: 'DELETE' })).status).toBe(204);
      for (const [name, node] of Object.entries(nodes))
        await until(`the bundle's deletion on the ${name} node`, async () => ((await bundleOn(node)) === null ? true : undefined));
    },
  );

  it('keeps a key created while the broker is down through a kill -9, and sends it once the broker is back', { timeout: 120_000 }, async () => {
    broker?.resume();
    await broker?.stop();
    broker = await startMockBroker();
    const lake = tempDir('faultline-shared-lake-');
    const seeded = await seededDataDirs(2);
    const configDir = tempDir('faultline-outbox-');
    const file = join(configDir, 'query.yaml');
    writeFileSync(file, roleYaml('query'));
    const env = { ...roleEnv(broker.brokers, lake), FAULTLINE_LOG_LEVEL: 'info' };
    const other = await startService({ yaml: roleYaml('query'), dataDir: seeded.dirs[1], keys: { live: seeded.liveKey, test: seeded.testKey }, env });
    services.push(other);
    const first = await startProcess(seeded.dirs[0], ['--config', file], env);
    processes.push(first);

    broker.pause();
    const created = await runCli(['keys', 'create', '--project', seeded.projectId, '--name', 'made offline'], childEnv(seeded.dirs[0]));
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim().split('\n').pop()!;
    first.child.kill('SIGKILL');
    await first.exited;
    broker.resume();
    // The change waits in the dead node's outbox, committed with the key itself.
    const db = await Database.open(seeded.dirs[0]);
    const outbox = (await db.reader().runAndReadAll('SELECT key FROM control_outbox')).getRows().map(([key]) => String(key));
    await db.close();
    expect(outbox).toEqual([`key:${/key_[A-Za-z0-9]+/.exec(created.stdout)![0]}`]);

    // Nothing reached Kafka before the kill: the other node does not know the key...
    await new Promise((r) => setTimeout(r, 2000));
    expect((await other.api('/v1/projects', { key: secret })).status).toBe(401);
    // ...until the node comes back and sends what its outbox kept.
    const again = await startProcess(seeded.dirs[0], ['--config', file], env);
    processes.push(again);
    await until(
      'the offline key on the other node',
      async () => ((await other.api('/v1/projects', { key: secret })).status === 200 ? true : undefined),
      30_000,
    );
  });
});
