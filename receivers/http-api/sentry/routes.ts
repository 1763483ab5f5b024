// Sentry-SDK ingest on the service's HTTP port: POST /api/{ingest_id}/envelope/ and
// POST /api/{ingest_id}/store/, authenticated by a project's DSN key, with CORS for browser SDKs.
// Events go to the events pipelines, transactions and spans to the traces pipelines, replays to
// a replays pipeline when one lists this receiver; attachments are stored with their event and
// sessions counted per release, all before the SDK is answered. Past a key's rate limit or the
// pipelines' budget the answer is 429 with Retry-After and X-Sentry-Rate-Limits, which SDKs obey.
import type { Consumer } from '../../../src/engine/component.js';
import { OverloadedError } from '../../../src/engine/errors.js';
import type { Host } from '../../../src/engine/host.js';
import type { Item, Signal, Tenant } from '../../../src/engine/item.js';
import { refusalReason, withReservedBody } from '../../../src/http/intake.js';
import { ApiError, errors } from '../../../src/http/errors.js';
import { json, type RequestContext, type RouteDefinition } from '../../../src/http/host.js';
import type { ApiKey, Project } from '../../../extensions/catalog/catalog.js';
import { sentryIngestOf, type DiscardedEvents, type SessionCounts } from '../../../extensions/sentry-ingest/index.js';
import { authenticateDsn, sentryKeyFromDsn, sentryKeyFromHeader } from '../../../src/auth/sentry-dsn.js';
import { isJsonObject, parseEnvelope, parseJsonPayload, type EnvelopeItem, type JsonObject, type SkippedItem } from './envelope.js';
import { mapSentryEvent, sentryEventId } from './event.js';
import { keepMappedBody } from '../../../src/records/event-body.js';
import { inflateCapped, parseEvents } from '../routes/replays.js';
import type { ReplayChunkInput } from '../../../src/records/replay.js';
import { mapReplay, rrwebMilliseconds } from './replay.js';
import { aggregateCounts, MAX_COUNT, sessionCounts } from './sessions.js';
import { mapStandaloneSpan, mapTransaction } from './spans.js';
import { catalogOf } from '../../../extensions/catalog/index.js';
import { httpServerOf } from '../../../src/http/server-extension.js';
import { checkinsOf } from '../../../src/records/checkin.js';

export interface SentryRouteOptions {
  host: Host;
  receiverId: string;
  consumers: Partial<Record<Signal, Consumer>>;
  maxEnvelopeBytes: number;
  maxEventBytes: number;
  maxAttachmentBytes: number;
}

const EVENT_SIZE = 4096;
const SPAN_SIZE = 512;
/** Each attachment is a synced file write before the answer: an envelope of thousands of tiny ones is not. */
const MAX_ATTACHMENTS = 100;
const ALLOW_HEADERS = 'content-type, content-encoding, x-sentry-auth, authorization, sentry-trace, baggage';
const EXPOSE_HEADERS = 'x-sentry-rate-limits, retry-after, x-request-id';

interface Ingest {
  tenant: Tenant;
  skipped: SkippedItem[];
  eventId?: string;
}

export function sentryRoutes(options: SentryRouteOptions): RouteDefinition[] {
  const { host } = options;
  // Attachments, sessions and client reports are the sentry_ingest extension's to store.
  const sentryIngest = sentryIngestOf(host);
  const catalog = catalogOf(host);
  const http = httpServerOf(host);
  const common = {
    tag: 'sentry',
    auth: false,
    query: [{ name: 'sentry_key', description: "The DSN's public key (else X-Sentry-Auth, or the envelope header's dsn)", schema: { type: 'string' } }],
  };
  const responses = {
    200: '{id: "<event id, 32 hex>"} and, when items were skipped, skipped: [{index, type, reason}]',
    400: 'invalid_json (envelope header or store body), validation_failed (store: the event cannot be used)',
    401: 'unauthorized (no or unknown DSN key)',
    403: 'forbidden (the key is not one of this project, or the Origin is not allowed)',
    408: 'request_timeout',
    413: 'payload_too_large (the body, or an item over its cap)',
    415: 'unsupported_media_type (a content encoding other than gzip, deflate, br)',
    429: 'rate_limited: past the key rate limit or the pipelines budget (Retry-After, X-Sentry-Rate-Limits)',
    503: 'unavailable (storage failing or shutting down; retry)',
  };
  const routes: RouteDefinition[] = [];
  for (const [kind, summary] of [
    ['envelope', 'Sentry SDK envelope: events, transactions, spans, attachments, sessions, client reports, replays'],
    ['store', 'Sentry SDK store endpoint: one event (or transaction) as JSON'],
  ] as const) {
    // The router matches the path with and without its trailing slash (SDKs send it).
    const path = `/api/:ingest_id/${kind}/`;
    // Lean: served from node:http before h3 builds a web Request (src/http/host.ts), as /v1/events is.
    routes.push({ method: 'POST', path, summary, ...common, lean: true, responses, handler: (ctx) => handle(ctx, kind) });
    routes.push({
      method: 'OPTIONS',
      path,
      summary: 'CORS preflight for browser SDKs',
      tag: 'sentry',
      auth: false,
      responses: { 204: "Access-Control-Allow-* for the project's allowed origins", 403: 'forbidden (Origin not allowed)' },
      handler: (ctx) => preflight(ctx),
    });
  }
  return routes;

  async function preflight(ctx: RequestContext): Promise<Response> {
    const project = /^\d{1,15}$/.test(ctx.params.ingest_id) ? await catalog.projectByIngestId(Number(ctx.params.ingest_id)) : undefined;
    const cors = corsHeaders(project, ctx.event.req.headers.get('origin'));
    if (!cors) throw errors.forbidden('this origin may not send to the project (allowed_origins)');
    return new Response(null, {
      status: 204,
      headers: {
        ...cors,
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': '3600',
        'x-request-id': ctx.requestId,
      },
    });
  }

  async function handle(ctx: RequestContext, kind: 'envelope' | 'store'): Promise<Response> {
    const headers = ctx.event.req.headers;
    const origin = headers.get('origin');
    let cors: Record<string, string> = {};
    try {
      const given =
        keyFromAuthHeader(headers.get('x-sentry-auth')) ?? sentryKeyFromHeader(headers.get('authorization')) ?? ctx.query.get('sentry_key') ?? undefined;
      let auth: { key: ApiKey; project: Project } | undefined;
      const authorize = async (publicKey: string | undefined) => {
        auth = await authenticateDsn(catalog, ctx.params.ingest_id, publicKey);
        const allowed = corsHeaders(auth.project, origin);
        if (!allowed) throw errors.forbidden(`origin ${origin} may not send to this project (allowed_origins)`);
        cors = allowed;
        const wait = http.rateLimiter.take(auth.key.id);
        if (wait > 0) throw sentryRateLimited(wait, 'key');
        return auth;
      };
      // The key in a header or the URL is checked before the body is read; only an envelope
      // that carries its DSN in its header needs reading first.
      if (given !== undefined || kind === 'store') await authorize(given);
      const primary = options.consumers.events ?? options.consumers.traces;
      if (!primary) throw errors.notFound('no events or traces pipeline takes Sentry ingest (http_api)');
      const limit = kind === 'store' ? options.maxEventBytes : options.maxEnvelopeBytes;
      const result = await withReservedBody(
        ctx.event,
        primary,
        { limit, timeoutMs: host.settings.limits.body_timeout_ms, brotli: true },
        async (body, reserved) => {
          const consumers = options.consumers.events ? { ...options.consumers, events: reserved } : { ...options.consumers, traces: reserved };
          if (kind === 'store') {
            const payload = parseJsonPayload(body);
            if (!payload.ok) throw errors.invalidJson(`the body ${payload.reason.replace(/^the payload /, '')}`);
            const item: EnvelopeItem = {
              index: 0,
              type: payload.value.type === 'transaction' ? 'transaction' : 'event',
              header: {},
              payload: body,
              parsed: payload.value,
            };
            return ingest(auth as { key: ApiKey; project: Project }, [item], [], {}, consumers, true);
          }
          const envelope = parseEnvelope(body);
          if (!auth) await authorize(sentryKeyFromDsn(envelope.header.dsn));
          return ingest(auth as unknown as { key: ApiKey; project: Project }, envelope.items, envelope.skipped, envelope.header, consumers, false);
        },
      );
      return json(ctx, 200, result, cors);
    } catch (error) {
      const refusal = refusalReason(error);
      host.metrics.receiverRefused.inc({ receiver: options.receiverId, signal: 'events', reason: refusal });
      throw withHeaders(asSentryRefusal(error), cors);
    }
  }

  async function ingest(
    auth: { key: ApiKey; project: Project },
    items: EnvelopeItem[],
    skipped: SkippedItem[],
    header: JsonObject,
    consumers: Partial<Record<Signal, Consumer>>,
    store: boolean,
  ): Promise<JsonObject> {
    const { metrics } = host;
    const tenant: Tenant = { orgId: auth.project.org_id, projectId: auth.project.id, dataset: auth.key.dataset };
    const state: Ingest = { tenant, skipped };
    const receivedAt = Date.now();
    const count = (type: string | undefined, outcome: string, n = 1) => metrics.sentryItems.inc({ type: knownLabel(ITEM_TYPES, type), outcome }, n);
    const skip = (item: EnvelopeItem, reason: string) => {
      skipped.push({ index: item.index, type: item.type, reason });
      count(item.type, 'skipped');
    };
    for (const s of skipped) count(s.type ?? undefined, 'skipped');

    const events: Array<{ item: EnvelopeItem; record: Item; id: string }> = [];
    const spans: Array<{ item: EnvelopeItem; records: Item[] }> = [];
    const attachmentItems: EnvelopeItem[] = [];
    const sessions: SessionCounts[] = [];
    const discarded: DiscardedEvents[] = [];
    let replayEvent: JsonObject | undefined;
    let replayRecording: EnvelopeItem | undefined;
    const checkins: Array<{ item: EnvelopeItem; payload: JsonObject }> = [];

    // Sizes first: an item over its cap refuses the envelope before anything is stored.
    for (const item of items) {
      const cap =
        item.type === 'attachment' ? options.maxAttachmentBytes : item.type === 'event' || item.type === 'transaction' ? options.maxEventBytes : undefined;
      if (cap !== undefined && item.payload.length > cap)
        throw new ApiError(413, 'payload_too_large', `item ${item.index} (${item.type}) is ${item.payload.length} bytes, over its cap of ${cap} bytes`);
    }

    for (const item of items) {
      switch (item.type) {
        case 'event':
        case 'transaction':
        case 'span':
        case 'session':
        case 'sessions':
        case 'client_report':
        case 'replay_event': {
          const parsed = item.parsed ? { ok: true as const, value: item.parsed } : parseJsonPayload(item.payload);
          if (!parsed.ok) {
            if (store) throw errors.invalidJson(`the body ${parsed.reason.replace(/^the payload /, '')}`);
            skip(item, parsed.reason);
            break;
          }
          const payload = parsed.value;
          if (item.type === 'event') {
            const mapped = mapSentryEvent(payload, receivedAt, typeof header.event_id === 'string' ? header.event_id : undefined);
            if (!mapped.ok) {
              if (store) throw errors.validation(mapped.reason, [{ path: '', message: mapped.reason }]);
              skip(item, mapped.reason);
              break;
            }
            state.eventId ??= mapped.eventId;
            // The duckdb exporter may store the mapped body as the event's body (src/records/event-body.ts).
            keepMappedBody(mapped.body);
            events.push({ item, id: mapped.eventId, record: { data: mapped.body, tenant, receivedAt, size: EVENT_SIZE, notes: mapped.notes } });
          } else if (item.type === 'transaction' || item.type === 'span') {
            const mapped = item.type === 'transaction' ? mapTransaction(payload) : mapStandaloneSpan(payload);
            if (!mapped.ok) {
              if (store) throw errors.validation(mapped.reason, [{ path: '', message: mapped.reason }]);
              skip(item, mapped.reason);
              break;
            }
            if (item.type === 'transaction') state.eventId ??= sentryEventId(payload.event_id);
            spans.push({ item, records: mapped.spans.map((data) => ({ data, tenant, receivedAt, size: SPAN_SIZE })) });
          } else if (item.type === 'session' || item.type === 'sessions') {
            const counts = item.type === 'session' ? sessionCounts(payload) : aggregateCounts(payload);
            if (!counts) skip(item, 'a session needs attrs.release');
            else sessions.push(counts);
          } else if (item.type === 'client_report') {
            discarded.push(...discardedEvents(payload));
            count(item.type, 'accepted');
          } else replayEvent = payload;
          break;
        }
        case 'replay_recording':
          replayRecording = item;
          break;
        case 'attachment':
          attachmentItems.push(item);
          break;
        case 'check_in': {
          const parsed = parseJsonPayload(item.payload);
          if (!parsed.ok) skip(item, parsed.reason);
          else checkins.push({ item, payload: parsed.value });
          break;
        }
        default:
          count(item.type, 'ignored');
      }
    }

    // Into the pipelines: each resolves once every exporter made its items durable.
    if (events.length) {
      const consumer = consumers.events;
      if (!consumer) for (const e of events) skip(e.item, 'no events pipeline takes Sentry ingest');
      else {
        await consumer.consume(events.map((e) => e.record));
        for (const e of events) {
          const outcome = e.record.outcome;
          if (outcome?.kind === 'rejected') {
            if (store) throw errors.validation(outcome.message, outcome.details);
            skip(e.item, `${outcome.message}: ${outcome.details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
          } else if (outcome?.kind === 'dropped') {
            skipped.push({ index: e.item.index, type: e.item.type, reason: `dropped: ${outcome.reason}` });
            count('event', 'dropped');
          } else {
            count('event', 'accepted');
            metrics.receiverAccepted.inc({ receiver: options.receiverId, signal: 'events' });
          }
        }
      }
    }
    if (spans.length) {
      const consumer = consumers.traces;
      if (!consumer) for (const s of spans) skip(s.item, 'no traces pipeline takes Sentry ingest');
      else {
        await consumer.consume(spans.flatMap((s) => s.records));
        for (const s of spans) {
          const rejected = s.records.filter((r) => r.outcome?.kind === 'rejected');
          const accepted = s.records.filter((r) => r.outcome === undefined).length;
          metrics.receiverAccepted.inc({ receiver: options.receiverId, signal: 'traces' }, accepted);
          if (rejected.length === s.records.length) {
            if (store) {
              const first = rejected[0].outcome as { message: string; details: Array<{ path: string; message: string }> };
              throw errors.validation(first.message, first.details);
            }
            skip(s.item, 'no span of it could be stored');
          } else {
            count(s.item.type, 'accepted');
            if (rejected.length) skipped.push({ index: s.item.index, type: s.item.type, reason: `${rejected.length} of its spans were invalid and left out` });
          }
        }
      }
    }
    if (replayRecording || replayEvent) await replay(replayEvent, replayRecording, consumers.replays, state, receivedAt, count, skip);

    const attachTo = validEventId(header.event_id) ?? state.eventId;
    // The event they belong to, when it came in this envelope: they expire with it, and are not
    // kept when it was not stored (an envelope of attachments alone names its event in the header).
    const event = events.find((e) => e.id === attachTo && e.record.outcome === undefined && consumers.events !== undefined);
    const eventStored = event !== undefined || !items.some((i) => i.type === 'event');
    const eventAt =
      event && typeof (event.record.data as JsonObject).timestamp === 'string' ? ((event.record.data as JsonObject).timestamp as string) : undefined;
    for (const [position, item] of attachmentItems.entries()) {
      if (!attachTo) {
        skip(item, 'an attachment needs the event_id of its event in the envelope header');
        continue;
      }
      if (!eventStored) {
        skip(item, 'its event was not stored');
        continue;
      }
      if (position >= MAX_ATTACHMENTS) {
        skip(item, `an envelope keeps at most ${MAX_ATTACHMENTS} attachments`);
        continue;
      }
      const name = typeof item.header.filename === 'string' && item.header.filename !== '' ? item.header.filename : `attachment-${item.index}`;
      await sentryIngest.addAttachment(tenant.dataset, tenant.projectId, dashed(attachTo), {
        name,
        contentType: mediaType(item.header.content_type),
        attachmentType: typeof item.header.attachment_type === 'string' ? item.header.attachment_type : undefined,
        bytes: item.payload,
        eventAt,
      });
      count('attachment', 'accepted');
    }
    if (discarded.length) {
      await sentryIngest.recordClientReports(tenant.dataset, tenant.projectId, discarded);
      for (const d of discarded)
        metrics.sentryClientDiscarded.inc({ reason: knownLabel(DISCARD_REASONS, d.reason), category: knownLabel(DATA_CATEGORIES, d.category) }, d.quantity);
    }
    if (sessions.length) {
      await sentryIngest.recordSessions(tenant.dataset, tenant.projectId, sessions);
      for (const s of sessions) {
        metrics.sentrySessions.inc({ status: 'started' }, s.sessions);
        metrics.sentrySessions.inc({ status: 'crashed' }, s.crashed);
        metrics.sentrySessions.inc({ status: 'errored' }, s.errored);
        metrics.sentrySessions.inc({ status: 'abnormal' }, s.abnormal);
      }
      count('session', 'accepted', sessions.length);
    }
    // Cron check-ins go to the monitors receiver when one runs (receivers/monitors).
    const checkinSink = checkins.length ? checkinsOf(host).sink : undefined;
    for (const { item, payload } of checkins) {
      if (!checkinSink) {
        count(item.type, 'ignored');
        continue;
      }
      const taken = await checkinSink.takeSentryCheckin(tenant, payload);
      if ('skipped' in taken) skip(item, taken.skipped);
      else count(item.type, 'accepted');
    }
    const id = state.eventId ?? (typeof header.event_id === 'string' ? sentryEventId(header.event_id) : null);
    return { id, ...(skipped.length && { skipped: skipped.sort((a, b) => a.index - b.index) }) };
  }

  async function replay(
    replayEvent: JsonObject | undefined,
    recording: EnvelopeItem | undefined,
    consumer: Consumer | undefined,
    state: Ingest,
    receivedAt: number,
    count: (type: string, outcome: string) => void,
    skip: (item: EnvelopeItem, reason: string) => void,
  ): Promise<void> {
    const item = recording ?? { index: -1, type: 'replay_event', header: {}, payload: Buffer.alloc(0) };
    if (!recording) {
      count('replay_event', 'accepted'); // its metadata comes again with the recording
      return;
    }
    const mapped = mapReplay(replayEvent, recording.payload, receivedAt);
    if (!mapped.ok) return skip(item, mapped.reason);
    if (!consumer) {
      // The replays pipeline is not part of this configuration: counted, and said to the SDK.
      state.skipped.push({ index: item.index, type: item.type, reason: 'dropped: no replays pipeline takes Sentry ingest (http_api)' });
      count('replay_recording', 'dropped');
      return;
    }
    // What POST /v1/replays hands its pipeline: the fields, and the rrweb events inflated (capped like an envelope).
    let chunk: ReplayChunkInput;
    try {
      const { data, events, ...fields } = mapped.segment;
      chunk =
        typeof data === 'string'
          ? {
              fields,
              events: rrwebMilliseconds(parseEvents(await inflateCapped(Buffer.from(data, 'base64'), options.maxEnvelopeBytes, 'data'), 'data')),
              form: 'data',
            }
          : { fields, events: rrwebMilliseconds(events), form: 'events' };
    } catch (error) {
      return skip(item, `the replay recording could not be read: ${(error as Error).message}`);
    }
    const record: Item = { data: chunk, tenant: state.tenant, receivedAt, size: recording.payload.length };
    await consumer.consume([record]);
    // The SDK (and whoever reads its debug log) gets the field-level details, not just "invalid".
    if (record.outcome?.kind === 'rejected') skip(item, withDetails(record.outcome.message, record.outcome.details));
    else count('replay_recording', record.outcome ? 'dropped' : 'accepted');
  }
}

/** A rejection's message with its field errors: `message: path: why; path: why`. */
function withDetails(message: string, details: ReadonlyArray<{ path: string; message: string }>): string {
  return details.length ? `${message}: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : message;
}

/** The X-Sentry-Auth header last read, and its key: an SDK sends the same header with every request. */
let lastAuthHeader: string | null = null;
let lastAuthKey: string | undefined;

/** sentryKeyFromHeader, remembering the last header it read. */
function keyFromAuthHeader(value: string | null): string | undefined {
  if (value !== lastAuthHeader) {
    lastAuthKey = sentryKeyFromHeader(value);
    lastAuthHeader = value;
  }
  return lastAuthKey;
}

/** CORS headers for a request from `origin`, or undefined when the project does not allow it. */
function corsHeaders(project: Project | undefined, origin: string | null): Record<string, string> | undefined {
  const allowed = project?.allowed_origins;
  if (!allowed || allowed.includes('*'))
    return { 'access-control-allow-origin': origin ?? '*', vary: 'Origin', 'access-control-expose-headers': EXPOSE_HEADERS };
  if (origin === null) return {}; // not a browser: CORS does not apply
  if (!allowed.includes(origin)) return undefined;
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': EXPOSE_HEADERS };
}

/** 429 that SDKs understand: `X-Sentry-Rate-Limits: <seconds>:<categories (empty: all)>:<scope>`. */
function sentryRateLimited(seconds: number, scope: 'key' | 'project', reason?: string): ApiError {
  return new ApiError(
    429,
    'rate_limited',
    scope === 'key' ? 'too many requests for this DSN key' : 'the service is over its in-flight budget; retry later',
    [],
    {
      'retry-after': String(seconds),
      'x-sentry-rate-limits': `${seconds}::${scope}${reason ? `:${reason}` : ''}`,
    },
  );
}

/** Overload is a 429 here (SDKs back off on 429 and drop on 503), with the headers they read. */
function asSentryRefusal(error: unknown): unknown {
  if (error instanceof OverloadedError) return sentryRateLimited(error.retryAfterSeconds, 'project', 'overloaded');
  if (error instanceof ApiError && error.status === 503 && error.code === 'overloaded')
    return sentryRateLimited(Number(error.headers['retry-after'] ?? 1), 'project', 'overloaded');
  return error;
}

function withHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (!(error instanceof ApiError) || Object.keys(headers).length === 0) return error;
  return new ApiError(error.status, error.code, error.message, error.details, { ...error.headers, ...headers });
}

const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\x00-\\x1f]*"))*$`);

/** An attachment's content type if it is a well-formed media type (it is sent back as a header), else undefined. */
function mediaType(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 255 && MEDIA_TYPE.test(value) ? value : undefined;
}

/** The 32 hex digits of a well-formed event id, else undefined. */
function validEventId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hex = value.replaceAll('-', '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : undefined;
}

/**
 * The values the Sentry metrics' labels take: Sentry's envelope item types, client-report discard
 * reasons and data categories. A sender's other values count as `other`: every label value is a
 * time series kept for the life of the process, so a hostile sender must not be able to mint them.
 */
const ITEM_TYPES: ReadonlySet<string> = new Set([
  ...['event', 'transaction', 'span', 'session', 'sessions', 'client_report', 'replay_event', 'replay_recording', 'attachment', 'check_in'],
  ...['profile', 'profile_chunk', 'feedback', 'user_report', 'log', 'otel_log', 'statsd', 'metric_buckets', 'security', 'raw_security', 'nel'],
  ...['unreal_report', 'form_data', 'otel_span', 'trace_metric'],
]);
const DISCARD_REASONS: ReadonlySet<string> = new Set([
  ...['queue_overflow', 'cache_overflow', 'buffer_overflow', 'ratelimit_backoff', 'network_error', 'sample_rate', 'before_send'],
  ...['event_processor', 'send_error', 'internal_sdk_error', 'insufficient_data', 'backpressure', 'ignored', 'invalid'],
]);
const DATA_CATEGORIES: ReadonlySet<string> = new Set([
  ...['default', 'error', 'transaction', 'security', 'attachment', 'session', 'profile', 'profile_chunk', 'replay', 'internal'],
  ...['span', 'monitor', 'feedback', 'metric_bucket', 'log_item', 'log_byte', 'user_report_v2', 'transaction_indexed', 'span_indexed'],
]);

/** `unknown` for an item without a type, `other` for a value Sentry does not name. */
function knownLabel(known: ReadonlySet<string>, value: string | undefined): string {
  return value === undefined ? 'unknown' : known.has(value) ? value : 'other';
}

/**
 * A client report's `discarded_events`: whole positive quantities with their reason and category.
 * Both are snake_case words in Sentry's protocol (`queue_overflow`, `error`); anything else is
 * kept as `other` (the metrics count only the reasons and categories Sentry names: knownLabel).
 */
function discardedEvents(payload: JsonObject): DiscardedEvents[] {
  const out: DiscardedEvents[] = [];
  const label = (value: unknown) => (typeof value !== 'string' ? 'unknown' : /^[a-z][a-z0-9_]{0,63}$/.test(value) ? value : 'other');
  for (const entry of Array.isArray(payload.discarded_events) ? payload.discarded_events : []) {
    if (!isJsonObject(entry) || typeof entry.quantity !== 'number' || !Number.isSafeInteger(entry.quantity) || entry.quantity <= 0) continue;
    out.push({ reason: label(entry.reason), category: label(entry.category), quantity: Math.min(entry.quantity, MAX_COUNT) });
  }
  return out;
}

function dashed(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
