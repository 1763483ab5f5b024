// Data scrubbing end to end: events (POST /v1/events and Sentry envelopes from the real
// @sentry/node), spans (POST /v1/traces and the OpenTelemetry SDK's OTLP exporter) and replay
// segments full of secrets go in; the API and the web pages give them back scrubbed, and no file
// under the data directory (DocStore, DuckDB, the Parquet lake, replay blobs, the log) holds a
// raw secret afterwards, compressed or not. Project settings (PATCH /v1/projects/{id}) and YAML
// options apply on top of the defaults.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { expectError, type Ack } from '../support/http.js';
import { fullSnapshot, postChunk } from '../support/replays.js';
import { secretsIn, secretsUnder } from '../support/secrets.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { createUser, WebClient } from '../support/web.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API documents, read field by field

const tag = randomBytes(4).toString('hex');
const S = {
  password: `hunter2-pw-${tag}`,
  bearer: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzY3J1YiJ9.sig${tag}`,
  card: '4242 4242 4242 4242',
  cardDigits: '4242424242424242',
  aws: `AKIAZ7SCRUBTEST${tag.slice(0, 1).toUpperCase()}`.padEnd(20, '7').toUpperCase(),
  pem: `MIIEvQIBADANBgkqhkiG9w0${tag}`,
  apiKey: `apikey-value-${tag}`,
  cookie: `sessioncookie-${tag}`,
  queryToken: `qtoken-${tag}`,
  basic: Buffer.from(`ada:basicpass-${tag}`).toString('base64'),
  basicPassword: `basicpass-${tag}`,
  typed: `typed-input-${tag}`,
  customer: `cust-${tag.replace(/[a-f]/g, '7').slice(0, 6)}`,
  colour: `mauve-${tag}`,
  email: `ada-${tag}@example.com`,
};
/** Sent beside the secrets, and kept: the search below must find it, or it proves nothing. */
const VISIBLE = `visible-marker-${tag}`;
const SECRETS = Object.values(S);
const PEM = `-----BEGIN PRIVATE KEY-----\n${S.pem}\n-----END PRIVATE KEY-----`;

const dataDir = join(tempDir('faultline-scrub-'), 'data');
const logFile = join(dataDir, 'faultline.log');
let svc: TestService;
let dsn: string;

const yaml = readFileSync(join(packageRoot, 'config/examples/both.yaml'), 'utf8')
  .replace('  scrubbing: {}', '  scrubbing: { sensitive_fields: [favourite_colour] }')
  .replace('  parquet: {}', '  parquet: { flush: { interval_ms: 300 } }');

beforeAll(async () => {
  svc = await startService({ yaml, dataDir, keepData: true, logFile });
  const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Json[] }).data;
  const url = new URL(project.dsn as string);
  dsn = `http://${url.username}@${new URL(svc.baseUrl).host}${url.pathname}`;
}, 30_000);
afterAll(() => svc?.stop());

function leaked(document: unknown): string[] {
  return secretsIn(JSON.stringify(document), SECRETS);
}

describe('project settings', () => {
  it('PATCH /v1/projects/{id} validates data_scrubbing (400 with the path), stores it and GET /v1/projects shows it', async () => {
    const bad = await svc.api('/v1/projects/default', {
      method: 'PATCH',
      body: JSON.stringify({ data_scrubbing: { rules: [{ selector: '$string', pattern: '(a' }, { selector: 'extra..x' }], scrub_ip: 'yes' } }),
    });
    const body = await expectError(bad, 400, 'validation_failed');
    expect(body.error.details.map((d) => d.path)).toEqual(
      expect.arrayContaining(['data_scrubbing.rules[0].pattern', 'data_scrubbing.rules[1].selector', 'data_scrubbing.scrub_ip']),
    );
    await expectError(await svc.api('/v1/projects/nope', { method: 'PATCH', body: '{"data_scrubbing": {}}' }), 404, 'not_found');
    await expectError(await svc.api('/v1/projects/default', { method: 'PATCH', body: '{"colour": 1}' }), 400, 'validation_failed');

    const settings = { scrub_email: true, rules: [{ id: 'customer', selector: '$string', pattern: 'cust-[0-9]{6}', method: 'mask' }] };
    const ok = await svc.api('/v1/projects/default', { method: 'PATCH', body: JSON.stringify({ data_scrubbing: settings }) });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(((await ok.json()) as Json).data_scrubbing).toEqual({ ...settings, rules: [{ ...settings.rules[0] }] });
    const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Json[] }).data;
    expect(project.data_scrubbing).toMatchObject(settings);
  });
});

describe('events', () => {
  let eventId: string;
  let sentryEventId: string;

  beforeAll(async () => {
    const res = await svc.api('/v1/events', {
      method: 'POST',
      body: JSON.stringify({
        timestamp: new Date().toISOString(),
        environment: 'production',
        release: 'web@1.0.0',
        message: `login failed: password=${S.password} ${VISIBLE}`,
        exception: { type: 'PaymentError', value: `card ${S.card} refused; key ${S.aws}; ${PEM}` },
        user: { id: 'u-1', email: S.email },
        tags: { session_token: S.cookie, route: '/pay' },
        breadcrumbs: [{ message: `Authorization: Basic ${S.basic}`, data: { url: `/api?token=${S.queryToken}`, csrf: S.apiKey } }],
        contexts: {
          extra: { favourite_colour: S.colour, note: `customer ${S.customer}`, nested: { private_key: PEM } },
          auth: { credentials: S.password },
        },
        request: {
          url: `https://shop.example/pay?api_key=${S.apiKey}&step=2`,
          method: 'POST',
          headers: { Authorization: `Bearer ${S.bearer}`, Cookie: `sid=${S.cookie}`, 'X-Api-Key': S.apiKey, 'User-Agent': 'test' },
          query_string: `password=${S.password}`,
          data: { password: S.password, card_number: S.card, comment: VISIBLE },
        },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    eventId = ((await res.json()) as Ack).id;

    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(import.meta.dirname, '../fixtures/sentry/secrets-app.mjs')], {
        env: { ...process.env, SENTRY_DSN: dsn, SECRETS: JSON.stringify(S) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code, run.stderr).toBe(0);
    sentryEventId = (JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { eventId: string }).eventId;
  }, 30_000);

  it('POST /v1/events: every secret is [Filtered] (keys kept), the custom rule masked, and `scrubbed` says where and by which rule', async () => {
    const res = await svc.api(`/v1/events/${eventId}`);
    expect(res.status).toBe(200);
    const event = (await res.json()) as Json;
    expect(leaked(event)).toEqual([]);
    expect(event.message).toBe(`login failed: password=[Filtered] ${VISIBLE}`);
    expect(event.exception.value).toBe('card [Filtered] refused; key [Filtered]; [Filtered]');
    expect(event.request.headers).toEqual({ Authorization: '[Filtered]', Cookie: '[Filtered]', 'X-Api-Key': '[Filtered]', 'User-Agent': 'test' });
    expect(event.request.url).toBe('https://shop.example/pay?api_key=[Filtered]&step=2');
    expect(event.request.data).toEqual({ password: '[Filtered]', card_number: '[Filtered]', comment: VISIBLE });
    expect(event.contexts.extra.favourite_colour).toBe('[Filtered]'); // sensitive_fields from the YAML
    expect(event.contexts.extra.note).toBe(`customer ${'*'.repeat(S.customer.length)}`); // the project's custom rule
    expect(event.user).toEqual({ id: 'u-1', email: '[Filtered]' }); // the project's scrub_email
    expect(event.tags.session_token).toBe('[Filtered]');
    expect(event.scrubbed).toEqual(
      expect.arrayContaining([
        { path: 'request.headers.Authorization', rule: '@password' },
        { path: 'exception.value', rule: '@creditcard' },
        { path: 'exception.value', rule: '@privatekey' },
        { path: 'breadcrumbs.0.message', rule: '@bearer' },
        { path: 'contexts.extra.note', rule: 'customer' },
        { path: 'user.email', rule: '@email' },
      ]),
    );
    // The issue's title comes from the scrubbed exception.
    const issue = (await (await svc.api(`/v1/issues/${event.issue_id as string}`)).json()) as Json;
    expect(leaked(issue)).toEqual([]);
  });

  it('a Sentry envelope from @sentry/node: extra, tags, contexts, breadcrumbs and the exception are scrubbed', async () => {
    const res = await svc.api(`/v1/events/${sentryEventId}`);
    expect(res.status).toBe(200);
    const event = (await res.json()) as Json;
    expect(leaked(event)).toEqual([]);
    expect(event.exception.value).toContain('charge failed for card [Filtered] with key [Filtered]');
    expect(event.tags.api_key).toBe('[Filtered]');
    expect(event.contexts.extra.db_password).toBe('[Filtered]');
    expect(event.contexts.auth).toBe('[Filtered]');
    const crumb = (event.breadcrumbs as Json[]).find((b) => b.category === 'http');
    expect(crumb).toMatchObject({
      message: 'Authorization: Bearer [Filtered]',
      data: { url: 'https://api.example/v1?token=[Filtered]', cookie: '[Filtered]' },
    });
    // Its transaction's spans, through the Sentry span route.
    const trace = (await (await svc.api(`/v1/traces/${event.trace_id as string}`)).json()) as Json;
    expect(leaked(trace)).toEqual([]);
    const checkout = (trace.spans as Json[]).find((span) => span.name === 'checkout');
    expect(checkout?.attributes['http.request.header.authorization']).toBe('[Filtered]');
  });

  it('the web app shows the event scrubbed, and the project page its scrubbing settings', async () => {
    const password = await createUser(svc, `admin-${tag}@example.com`, 'admin');
    const web = new WebClient(svc.baseUrl);
    expect((await web.signIn(`admin-${tag}@example.com`, password)).status).toBe(303);
    const link = await web.fetch(`/events/${eventId}`);
    expect(link.status).toBe(303);
    const page = await web.fetch(link.headers.get('location') ?? '');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('[Filtered]');
    expect(html).toContain(VISIBLE);
    expect(secretsIn(html, SECRETS)).toEqual([]);
    const projects = await (await web.fetch('/projects')).text();
    expect(projects).toContain('Data scrubbing');
    expect(projects).toContain('cust-[0-9]{6}');
  });
});

describe('spans', () => {
  const traceId = randomBytes(16).toString('hex');

  it('POST /v1/traces and OTLP from the OpenTelemetry SDK: attributes, resource, events and names are scrubbed', async () => {
    const now = Date.now();
    const rest = await svc.api('/v1/traces', {
      method: 'POST',
      body: JSON.stringify({
        spans: [
          {
            trace_id: traceId,
            span_id: randomBytes(8).toString('hex'),
            name: `GET /login?password=${S.password}`,
            service_name: 'api',
            start_time: now,
            end_time: now + 5,
            status: 'error',
            status_message: `card ${S.card}`,
            attributes: { 'http.request.header.authorization': `Bearer ${S.bearer}`, 'url.full': `https://x/?api_key=${S.apiKey}`, 'app.note': VISIBLE },
            resource_attributes: { 'deployment.secret': S.password },
            events: [{ name: 'exception', time: now + 1, attributes: { 'exception.type': 'Error', 'exception.message': `leaked ${S.aws}` } }],
          },
        ],
      }),
    });
    expect(rest.status, await rest.clone().text()).toBe(202);

    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'otel-app', 'service.token': S.queryToken }),
      spanProcessors: [
        new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${svc.otlpUrl}/v1/traces`, headers: { Authorization: `Bearer ${svc.liveKey}` } })),
      ],
    });
    const tracer = provider.getTracer('scrub');
    let otelTrace = '';
    tracer.startActiveSpan('charge', (span) => {
      otelTrace = span.spanContext().traceId;
      span.setAttributes({ 'http.request.header.cookie': S.cookie, 'db.statement': `select 1 -- Bearer ${S.bearer}`, 'app.note': VISIBLE });
      span.recordException(new Error(`card ${S.card} declined`));
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    await provider.forceFlush();
    await provider.shutdown();

    const stored = (await (await svc.api(`/v1/traces/${traceId}`)).json()) as Json;
    expect(leaked(stored)).toEqual([]);
    const [span] = stored.spans as Json[];
    expect(span.name).toBe('GET /login?password=[Filtered]');
    expect(span.attributes['http.request.header.authorization']).toBe('[Filtered]');
    expect(span.attributes['url.full']).toBe('https://x/?api_key=[Filtered]');
    expect(span.attributes['app.note']).toBe(VISIBLE);
    expect(span.attributes['faultline.scrubbed']).toEqual(expect.arrayContaining(["@password attributes.'http.request.header.authorization'"]));

    const otel = (await (await svc.api(`/v1/traces/${otelTrace}`)).json()) as Json;
    expect(leaked(otel)).toEqual([]);
    expect((otel.spans as Json[])[0].attributes['http.request.header.cookie']).toBe('[Filtered]');
    // The exception on the span became an error event: from the scrubbed span.
    const events = (await (await svc.api(`/v1/events?project_id=default&query=declined`)).json()) as { data: Json[] };
    expect(events.data.length).toBeGreaterThan(0);
    expect(leaked(events.data)).toEqual([]);
  });
});

describe('replays', () => {
  const replayId = `rpl_${tag}`;

  it('input values are masked, text keeps what is not secret, and strings are scrubbed before the segment is stored', async () => {
    const t = Date.now();
    const events = [
      { type: 4, timestamp: t, data: { href: `https://shop.example/pay?token=${S.queryToken}`, width: 800, height: 600 } },
      fullSnapshot(t + 1, [
        { type: 3, id: 3, textContent: `Pay with ${S.card} ${VISIBLE}` },
        { type: 2, id: 4, tagName: 'input', attributes: { type: 'password', value: S.password }, childNodes: [] },
        { type: 2, id: 5, tagName: 'textarea', attributes: {}, childNodes: [{ type: 3, id: 6, textContent: S.apiKey }] },
      ]),
      { type: 3, timestamp: t + 2, data: { source: 5, id: 4, text: S.typed, isChecked: false } },
      { type: 5, timestamp: t + 3, data: { tag: 'breadcrumb', payload: { category: 'fetch', data: { headers: { authorization: `Bearer ${S.bearer}` } } } } },
    ];
    const res = await postChunk(svc, 'data-gzip', { replay_id: replayId, segment_id: 0, user: { id: 'u-1', email: S.email } }, events);
    expect(res.status, await res.clone().text()).toBe(202);
    const segment = (await (await svc.api(`/v1/replays/${replayId}/segments/0`)).json()) as unknown[];
    expect(leaked(segment)).toEqual([]);
    const text = JSON.stringify(segment);
    expect(text).toContain(`Pay with [Filtered] ${VISIBLE}`);
    expect(text).toContain('"text":"' + '*'.repeat(S.typed.length) + '"');
    const replay = (await (await svc.api(`/v1/replays/${replayId}`)).json()) as Json;
    expect(leaked(replay)).toEqual([]);
  });
});

describe('the data directory afterwards', () => {
  it('holds no raw secret in any file, decoded or not: DocStore, DuckDB, Parquet, replay blobs, the log', async () => {
    await svc.stop();
    const { hits, files, forms } = await secretsUnder(dataDir, SECRETS);
    expect(hits).toEqual([]);
    // The search can see: the marker sent beside the secrets is found in each kind of store.
    const seen = await secretsUnder(dataDir, [VISIBLE]);
    const where = seen.hits.join('\n');
    expect(where).toMatch(/faultline\.duckdb \(duckdb tables\)/);
    expect(where).toMatch(/\.parquet \(parquet rows\)/);
    expect(where).toMatch(/\(gunzip\)/); // a replay blob
    expect(where).toMatch(/docs\/.*\(bytes\)/); // the DocStore
    expect(files.some((f) => f.endsWith('faultline.log'))).toBe(true);
    expect(readFileSync(logFile, 'utf8').length).toBeGreaterThan(0);
    expect([...forms]).toEqual(expect.arrayContaining(['bytes', 'gunzip', 'parquet rows', 'duckdb tables']));
  }, 60_000);
});
