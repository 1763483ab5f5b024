// Sentry-SDK ingest in every role (issue #16 with issue #15's roles): an ingest node (http_api ->
// validation -> kafka exporter) takes envelopes for a project and DSN key created afterwards on
// the query node (replicated by the control plane), the worker consumes them, and the query node
// reads the event and the transaction's trace back. A DSN key revoked on the query node is then
// refused by the ingest node. Replays over Kafka are another change's (not sent here).
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockBroker, type MockBroker } from '../support/kafka.js';
import { startRoles, until } from '../support/kafka-roles.js';
import { childEnv, runCli } from '../support/process.js';
import type { TestService } from '../support/service.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents read back are checked field by field
type Json = Record<string, any>;

function envelope(header: Record<string, unknown>, items: Array<[Record<string, unknown>, unknown]>): Buffer {
  const lines = [JSON.stringify(header)];
  for (const [itemHeader, payload] of items) lines.push(JSON.stringify(itemHeader), JSON.stringify(payload));
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe('Sentry ingest through an ingest node, Kafka and a worker', () => {
  let broker: MockBroker | undefined;
  const nodes: TestService[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await broker?.stop();
  });

  it('an envelope posted to the ingest node is readable on the query node; a key revoked on the query node is refused', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, query, queryDir } = await startRoles(broker, nodes);

    // A project and a DSN key made on the query node, after every node started.
    expect((await runCli(['projects', 'create', '--id', 'shop', '--name', 'Shop'], childEnv(queryDir))).code).toBe(0);
    const created = await runCli(['keys', 'create', '--project', 'shop', '--dsn', '--name', 'sdk'], childEnv(queryDir));
    expect(created.code, created.stderr).toBe(0);
    const dsn = new URL(/^https?:\/\/\S+$/m.exec(created.stdout)![0]);
    const keyId = /key_[A-Za-z0-9]+/.exec(created.stdout)![0];
    const publicKey = dsn.username;
    const ingestId = dsn.pathname.slice(1);
    const [shop] = ((await (await query.api('/v1/projects')).json()) as { data: Json[] }).data.filter((p) => p.id === 'shop');
    expect(String(shop.ingest_id)).toBe(ingestId);

    const eventId = randomBytes(16).toString('hex');
    const traceId = randomBytes(16).toString('hex');
    const rootSpan = randomBytes(8).toString('hex');
    const childSpan = randomBytes(8).toString('hex');
    const t = Math.floor(Date.now() / 1000) - 60;
    const body = envelope({ event_id: eventId, sent_at: new Date().toISOString() }, [
      [
        { type: 'event' },
        {
          event_id: eventId,
          timestamp: t + 0.25,
          platform: 'node',
          release: 'shop@1.0.0',
          exception: {
            values: [{ type: 'TypeError', value: 'cart is undefined', stacktrace: { frames: [{ filename: 'cart.js', function: 'total', lineno: 7 }] } }],
          },
          contexts: { trace: { trace_id: traceId, span_id: childSpan } },
        },
      ],
      [
        { type: 'transaction' },
        {
          type: 'transaction',
          event_id: randomBytes(16).toString('hex'),
          transaction: 'POST /checkout',
          start_timestamp: t + 0.123456,
          timestamp: t + 0.5,
          release: 'shop@1.0.0',
          contexts: { trace: { trace_id: traceId, span_id: rootSpan, op: 'http.server', status: 'ok' } },
          spans: [
            {
              trace_id: traceId,
              span_id: childSpan,
              parent_span_id: rootSpan,
              op: 'db.query',
              description: 'SELECT * FROM carts',
              start_timestamp: t + 0.2,
              timestamp: t + 0.3,
            },
          ],
        },
      ],
    ]);
    const post = (key: string) =>
      fetch(`${ingest.baseUrl}/api/${ingestId}/envelope/`, {
        method: 'POST',
        body: gzipSync(body),
        headers: { 'content-encoding': 'gzip', 'x-sentry-auth': `Sentry sentry_key=${key}, sentry_version=7, sentry_client=test/1.0` },
      });
    // The ingest node learns the project and its key from the control plane within seconds.
    const answer = await until('the DSN key on the ingest node', async () => {
      const res = await post(publicKey);
      if (res.status === 401 || res.status === 403) return undefined;
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as Json;
    });
    expect(answer).toEqual({ id: eventId });

    // The worker consumed it; the query node reads it from the lake.
    const event = await until(
      'the event on the query node',
      async () => {
        const res = await query.api(`/v1/events/${eventId}?project_id=shop`);
        return res.status === 200 ? ((await res.json()) as Json) : undefined;
      },
      45_000,
    );
    expect(event).toMatchObject({ project_id: 'shop', release: 'shop@1.0.0', trace_id: traceId, exception: { type: 'TypeError', value: 'cart is undefined' } });
    expect(event.issue_id).toEqual(expect.any(String));
    const trace = await until(
      'the trace on the query node',
      async () => {
        const res = await query.api(`/v1/traces/${traceId}`);
        const doc = res.status === 200 ? ((await res.json()) as Json) : undefined;
        return doc && doc.span_count === 2 ? doc : undefined;
      },
      45_000,
    );
    expect(trace.root_span_id).toBe(rootSpan);
    const bySpan = Object.fromEntries((trace.spans as Json[]).map((s) => [s.span_id, s]));
    expect(bySpan[rootSpan]).toMatchObject({ name: 'POST /checkout', start_time_unix_nano: `${t}123456000`, end_time_unix_nano: `${t}500000000` });
    expect(bySpan[childSpan]).toMatchObject({ name: 'SELECT * FROM carts', parent_span_id: rootSpan, start_time_unix_nano: `${t}200000000` });
    expect(bySpan[childSpan].attributes['sentry.op']).toBe('db.query');

    // The seeded project's DSN key is not a key of this project.
    expect(
      (await post(new URL(((await (await query.api('/v1/projects')).json()) as { data: Json[] }).data.find((p) => p.id !== 'shop')!.dsn as string).username))
        .status,
    ).toBe(403);
    // Revoked on the query node: refused by the ingest node.
    expect((await runCli(['keys', 'revoke', keyId], childEnv(queryDir))).code).toBe(0);
    await until('the revocation on the ingest node', async () => ((await post(publicKey)).status === 401 ? true : undefined));
  });
});
