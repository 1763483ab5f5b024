// Keys (issue 23, item 8): a lookup under way when `faultline keys revoke` runs cannot put the
// revoked key back into a cache — neither the bearer-key cache nor the DSN keys the Sentry routes
// read — and a sandbox key sees only sandbox keys in GET /v1/projects. The race is made
// deterministic by holding the lookup, after it has read the key as valid, until the CLI returned.
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../extensions/catalog/catalog.js';
import { childEnv, runCli } from '../support/process.js';
import { startService, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

let svc: TestService;
let catalog: Catalog;

beforeAll(async () => {
  svc = await startService();
  catalog = catalogOf(svc.service.host);
});

afterAll(async () => {
  await svc?.stop();
});

async function revokeWithCli(id: string): Promise<void> {
  const run = await runCli(['keys', 'revoke', id], childEnv(svc.dataDir));
  expect(run.code, run.stderr).toBe(0);
}

/** A latch: `hold` waits until `release` is called. */
function latch(): { hold: Promise<void>; release: () => void } {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  return { hold, release };
}

describe('revocation while a lookup is under way', () => {
  it('refuses a bearer key revoked between its lookup and the cache fill, on that request and every later one', async () => {
    const created = await catalog.createKey({ dataset: 'live', name: 'raced' });
    const original = catalog.keyForSecret.bind(catalog);
    const readDone = latch();
    const gate = latch();
    let held = false;
    catalog.keyForSecret = async (secret: string) => {
      const key = await original(secret);
      if (secret === created.secret && !held) {
        held = true;
        readDone.release(); // it read the key as live ...
        await gate.hold; // ... and waits while the CLI revokes it
      }
      return key;
    };
    try {
      const inFlight = svc.api('/v1/issues?project_id=default', { key: created.secret });
      await readDone.hold;
      await revokeWithCli(created.key.id);
      gate.release();
      expect((await inFlight).status).toBe(401);
      for (const path of ['/v1/issues?project_id=default', '/v1/projects', '/v1/events?project_id=default'])
        expect((await svc.api(path, { key: created.secret })).status, path).toBe(401);
    } finally {
      catalog.keyForSecret = original;
    }
  }, 60_000);

  it('refuses a DSN key revoked while the DSN keys were being read, on the Sentry routes', async () => {
    const created = await catalog.createKey({ dataset: 'live', projectId: 'default', dsn: true, name: 'raced dsn' });
    const project = await catalog.project('default');
    const store = () =>
      fetch(`${svc.baseUrl}/api/${project!.ingest_id}/store/`, {
        method: 'POST',
        body: JSON.stringify({ event_id: 'a'.repeat(32), timestamp: Date.now() / 1000, platform: 'node', message: 'raced' }),
        headers: { 'content-type': 'application/json', 'x-sentry-auth': `Sentry sentry_key=${created.secret}, sentry_version=7` },
      });
    const database = databaseOf(svc.service.host);
    const reader = database.reader.bind(database);
    const readDone = latch();
    const gate = latch();
    let held = false;
    // Holds the first read of the DSN keys after it ran (it saw the key live) until the CLI returned.
    database.reader = () => {
      const connection = reader();
      return new Proxy(connection, {
        get(target, name, receiver) {
          if (name !== 'runAndReadAll') return Reflect.get(target, name, receiver) as unknown;
          return async (...args: Parameters<DuckDBConnection['runAndReadAll']>) => {
            const result = await target.runAndReadAll(...args);
            if (!held && String(args[0]).includes("kind = 'dsn'")) {
              held = true;
              readDone.release();
              await gate.hold;
            }
            return result;
          };
        },
      });
    };
    try {
      const inFlight = store();
      await readDone.hold;
      await revokeWithCli(created.key.id);
      gate.release();
      expect((await inFlight).status).toBe(401);
    } finally {
      database.reader = reader;
    }
    expect((await store()).status).toBe(401);
    expect(await catalog.dsnKey(created.secret)).toBeUndefined();
  }, 60_000);
});

describe('GET /v1/projects with a sandbox key', () => {
  it('lists only sandbox keys and a sandbox DSN, never a live one', async () => {
    const liveDsn = await catalog.createKey({ dataset: 'live', projectId: 'default', dsn: true, name: 'live dsn' });
    const liveApi = await catalog.createKey({ dataset: 'live', projectId: 'default', name: 'live api' });
    const testDsn = await catalog.createKey({ dataset: 'test', projectId: 'default', dsn: true, name: 'sandbox dsn' });

    const sandbox = await svc.api('/v1/projects', { key: svc.testKey });
    const text = await sandbox.text();
    expect(sandbox.status, text).toBe(200);
    const project = (JSON.parse(text) as { data: Array<{ id: string; dsn: string | null; keys: Array<{ id: string; environment: string }> }> }).data.find(
      (p) => p.id === 'default',
    );
    expect(project).toBeDefined();
    expect(project!.keys.length).toBeGreaterThan(0);
    expect(project!.keys.every((k) => k.environment === 'test')).toBe(true);
    for (const hidden of [liveDsn, liveApi]) {
      expect(text).not.toContain(hidden.key.id);
      expect(text).not.toContain(hidden.key.display_prefix);
    }
    expect(text).not.toContain(liveDsn.secret);
    expect(project!.dsn).toContain(testDsn.secret);

    // The live key still sees both.
    const live = await (await svc.api('/v1/projects')).text();
    expect(live).toContain(liveDsn.key.id);
    expect(live).toContain(testDsn.key.id);
  });
});
