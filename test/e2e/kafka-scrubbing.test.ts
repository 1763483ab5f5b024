// Scrubbing on the Kafka roles: the ingest node scrubs before its kafka exporter, so no message on
// any topic holds a raw secret; a project's data_scrubbing set on the query node reaches the
// ingest node over the control plane (faultline.catalog) and applies there.
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import kafkajs from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOPICS } from '../../src/kafka/connection.js';
import { startMockBroker, type MockBroker } from '../support/kafka.js';
import { startRoles, until } from '../support/kafka-roles.js';
import { postChunk } from '../support/replays.js';
import { secretsIn } from '../support/secrets.js';
import { fullEvent, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

const tag = randomBytes(4).toString('hex');
const S = {
  password: `kafka-pw-${tag}`,
  bearer: `eyJhbGciOiJIUzI1NiJ9.eyJrYWZrYSI6MX0.sig${tag}`,
  card: '5555 5555 5555 4444',
  apiKey: `kafka-apikey-${tag}`,
  typed: `kafka-typed-${tag}`,
  customer: `cust-${tag.replace(/[a-f]/g, '3').slice(0, 6)}`,
};
const SECRETS = Object.values(S);
const VISIBLE = `kafka-visible-${tag}`;

describe('scrubbing on the ingest node, before Kafka', () => {
  let broker: MockBroker | undefined;
  const nodes: TestService[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await broker?.stop();
  });

  it('no message on the signal or catalog topics holds a secret; a project setting made on another node applies', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, query } = await startRoles(broker, nodes);

    const patched = await query.api('/v1/projects/default', {
      method: 'PATCH',
      body: JSON.stringify({ data_scrubbing: { rules: [{ id: 'customer', selector: '$string', pattern: 'cust-[0-9]{6}', method: 'mask' }] } }),
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    await until('the setting on the ingest node', async () =>
      (await catalogOf(ingest.service.host).project('default'))?.data_scrubbing?.rules?.length ? true : undefined,
    );

    const event = fullEvent({
      message: `login by ${S.customer} failed: password=${S.password} ${VISIBLE}`,
      exception: { type: 'Error', value: `card ${S.card}` },
      request: { url: 'https://shop.example/login', headers: { Authorization: `Bearer ${S.bearer}` }, data: { api_key: S.apiKey } },
    });
    const posted = await ingest.api('/v1/events', { method: 'POST', body: JSON.stringify(event) });
    expect(posted.status, await posted.clone().text()).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    const now = Date.now();
    const trace = randomBytes(16).toString('hex');
    const spans = [
      {
        trace_id: trace,
        span_id: randomBytes(8).toString('hex'),
        name: 'login',
        start_time: now - 10,
        end_time: now,
        attributes: { 'http.request.header.authorization': `Bearer ${S.bearer}`, 'app.card': `card ${S.card}`, 'app.note': VISIBLE },
      },
    ];
    expect((await ingest.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans }) })).status).toBe(202);
    const replayId = `rpl_k${tag}`;
    const replay = [
      { type: 4, timestamp: now - 10, data: { href: `https://shop.example/?api_key=${S.apiKey}`, width: 800, height: 600 } },
      { type: 3, timestamp: now - 5, data: { source: 5, id: 9, text: S.typed, isChecked: false } },
      { type: 5, timestamp: now - 4, data: { tag: 'note', payload: { text: VISIBLE } } },
    ];
    expect((await postChunk(ingest, 'events', { replay_id: replayId, segment_id: 0 }, replay)).status).toBe(202);

    // Read back on the query node, through the worker and the lake: scrubbed, the project's rule applied.
    const stored = await until('the event on the query node', async () => {
      const res = await query.api(`/v1/events/${id}`);
      return res.status === 200 ? ((await res.json()) as { message: string }) : undefined;
    });
    expect(stored.message).toBe(`login by ${'*'.repeat(S.customer.length)} failed: password=[Filtered] ${VISIBLE}`);
    expect(secretsIn(JSON.stringify(stored), SECRETS)).toEqual([]);

    // Every message of every topic, from the beginning.
    const kafka = new kafkajs.Kafka({ brokers: [broker.brokers], logLevel: kafkajs.logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `scrub-check-${tag}` });
    await consumer.connect();
    const topics = [...Object.values(DEFAULT_TOPICS), 'faultline.catalog'];
    await consumer.subscribe({ topics, fromBeginning: true });
    const texts = new Map<string, string[]>();
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const value = message.value ?? Buffer.alloc(0);
        const decoded = value[0] === 0x1f && value[1] === 0x8b ? gunzipSync(value) : value;
        const headers = Object.entries(message.headers ?? {}).map(([k, v]) => `${k}=${String(v)}`);
        texts.set(topic, [...(texts.get(topic) ?? []), decoded.toString('latin1'), decoded.toString('utf8'), ...headers]);
      },
    });
    try {
      // Until the marker sent beside the secrets shows on each signal topic: the search below then sees those messages.
      await until(
        'the messages with the marker on every signal topic',
        async () => (Object.values(DEFAULT_TOPICS).every((topic) => (texts.get(topic) ?? []).some((text) => text.includes(VISIBLE))) ? true : undefined),
        30_000,
      );
    } finally {
      await consumer.disconnect();
    }
    const found = [...texts].flatMap(([topic, values]) => secretsIn(values.join('\n'), SECRETS).map((secret) => `${topic}: ${secret}`));
    expect(found).toEqual([]);
    expect(texts.get('faultline.catalog')?.some((text) => text.includes('cust-[0-9]{6}'))).toBe(true);
  });
});
