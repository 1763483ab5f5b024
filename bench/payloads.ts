// Realistic request bodies, generated once before any timing starts:
// - error events (4-8 KB: 10-30 frames, tags, user, breadcrumbs, contexts, request) drawn from
//   200 distinct errors over 3 releases, so grouping does real work; none carries an id, so none
//   is a duplicate of another;
// - OTLP ExportTraceServiceRequest protobuf bodies of 512 spans with ~10 attributes each, built by
//   the real OpenTelemetry SDK and serialized by @opentelemetry/otlp-transformer, as the SDK's
//   BatchSpanProcessor sends them; every request gets fresh trace and span ids (patched into the
//   encoded bytes), so nothing is deduplicated.
import { randomFillSync } from 'node:crypto';

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { decodeOtlpTraces, spansOf } from './otlp-proto.js';

/** A small deterministic PRNG (mulberry32), so every run sends the same bodies. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)];
const int = (random: () => number, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
const hex = (random: () => number, digits: number): string => {
  let out = '';
  for (let i = 0; i < digits; i++) out += '0123456789abcdef'[Math.floor(random() * 16)];
  return out;
};

export const RELEASES = ['shop-web@2.14.0', 'shop-web@2.14.1', 'shop-web@2.15.0'] as const;
/** Environment and its share of the traffic. */
export const ENVIRONMENTS: ReadonlyArray<readonly [string, number]> = [
  ['production', 0.7],
  ['staging', 0.2],
  ['development', 0.07],
  ['canary', 0.03],
];
export const ROUTES = ['/checkout', '/cart', '/products/:id', '/search', '/account', '/orders/:id', '/login', '/api/graphql'] as const;
export const BROWSERS = ['Chrome 131', 'Firefox 133', 'Safari 18.1', 'Edge 131', 'Chrome Mobile 131', 'Mobile Safari 18'] as const;
export const REGIONS = ['eu-west-1', 'us-east-1', 'us-west-2', 'ap-southeast-2'] as const;

const ERROR_KINDS: ReadonlyArray<readonly [string, (r: () => number) => string]> = [
  ['TypeError', (r) => `Cannot read properties of undefined (reading '${pick(r, ['id', 'price', 'items', 'length', 'map', 'user', 'total'])}')`],
  ['TypeError', (r) => `${pick(r, ['cart', 'order', 'session', 'product'])}.${pick(r, ['map', 'reduce', 'filter', 'find'])} is not a function`],
  ['ReferenceError', (r) => `${pick(r, ['analytics', 'gtag', 'Stripe', 'dataLayer', 'paypal'])} is not defined`],
  ['RangeError', () => 'Maximum call stack size exceeded'],
  ['Error', (r) => `Request failed with status code ${pick(r, [400, 401, 404, 409, 422, 500, 502, 503])}`],
  ['ChunkLoadError', (r) => `Loading chunk ${int(r, 100, 999)} failed. (timeout: https://cdn.shop.example.com/static/js/${int(r, 100, 999)}.chunk.js)`],
  ['SyntaxError', () => 'Unexpected token < in JSON at position 0'],
  ['AbortError', () => 'The user aborted a request.'],
  ['ValidationError', (r) => `"${pick(r, ['email', 'postcode', 'quantity', 'card_number'])}" is not valid`],
  ['NetworkError', () => 'NetworkError when attempting to fetch resource.'],
];

const LIB_FRAMES = [
  [
    'node_modules/react-dom/cjs/react-dom.production.min.js',
    ['callCallback', 'invokeGuardedCallbackDev', 'commitRoot', 'performSyncWorkOnRoot', 'flushSyncCallbacks', 'dispatchDiscreteEvent', 'batchedUpdates$1'],
  ],
  ['node_modules/react/cjs/react.production.min.js', ['useMemo', 'useCallback', 'useEffect']],
  ['node_modules/scheduler/cjs/scheduler.production.min.js', ['workLoop', 'flushWork', 'performWorkUntilDeadline']],
  ['node_modules/axios/lib/core/Axios.js', ['request', 'dispatchRequest', 'settle']],
  ['node_modules/@tanstack/query-core/build/lib/query.js', ['fetch', 'executeFetch', 'onError']],
  ['node_modules/redux/lib/redux.js', ['dispatch', 'combination']],
] as const;
const APP_MODULES = [
  'pages/checkout',
  'pages/cart',
  'pages/product',
  'components/PriceTag',
  'components/CartItem',
  'components/AddressForm',
  'lib/api',
  'lib/money',
  'lib/session',
  'store/cart',
  'store/user',
  'hooks/useOrder',
  'hooks/useCart',
  'utils/format',
  'utils/validate',
];
const APP_FUNCTIONS = [
  'totalOf',
  'submitOrder',
  'renderRow',
  'applyCoupon',
  'loadUser',
  'formatPrice',
  'validateAddress',
  'fetchCart',
  'mergeItems',
  'onSubmit',
  'handleClick',
  'computeTax',
  'parseResponse',
  'useCartTotals',
  'selectShipping',
  'restoreSession',
];

export interface ErrorTemplate {
  type: string;
  value: string;
  message: string;
  level: 'error' | 'fatal' | 'warning';
  frames: Array<Record<string, unknown>>;
}

/** The 200 distinct errors (distinct in-app frame sets, so 200 issues). */
export function errorTemplates(count = 200): ErrorTemplate[] {
  const r = rng(20240601);
  const out: ErrorTemplate[] = [];
  for (let i = 0; i < count; i++) {
    const [type, value] = ERROR_KINDS[i % ERROR_KINDS.length];
    const frameCount = int(r, 10, 30);
    const frames: Array<Record<string, unknown>> = [];
    for (let f = 0; f < frameCount; f++) {
      const inApp = f >= frameCount - 6 ? r() < 0.8 : r() < 0.25;
      if (inApp) {
        const module = pick(r, APP_MODULES);
        const fn = pick(r, APP_FUNCTIONS);
        frames.push({
          filename: `src/${module}.tsx`,
          abs_path: `https://shop.example.com/static/js/src/${module}.tsx`,
          function: fn,
          lineno: int(r, 10, 400),
          colno: int(r, 3, 80),
          in_app: true,
          context_line: `  const ${pick(r, ['total', 'price', 'result'])} = ${pick(r, ['cart', 'order', 'props'])}.${pick(r, ['items', 'lines'])}.${pick(r, ['reduce', 'map'])}(sum);`,
        });
      } else {
        const [file, fns] = pick(r, LIB_FRAMES);
        frames.push({ filename: file, function: pick(r, fns), lineno: int(r, 1, 9000), colno: int(r, 1, 200), in_app: false });
      }
    }
    // Make the in-app stack unique per template (so 200 templates are 200 issues).
    frames.push({
      filename: `src/features/f${i}/handler.ts`,
      abs_path: `https://shop.example.com/static/js/src/features/f${i}/handler.ts`,
      function: `handle${i}`,
      module: `features/f${i}/handler`,
      lineno: int(r, 10, 200),
      colno: int(r, 3, 60),
      in_app: true,
      context_line: `  return ${pick(r, ['cart', 'order', 'session'])}.${pick(r, ['items', 'user', 'lines'])}[index].${pick(r, ['id', 'price'])};`,
      pre_context: ['export function handler(index: number) {', '  const session = useSession();', '  if (!session) return null;'],
      post_context: ['}', '', 'export default handler;'],
    });
    out.push({
      type,
      value: value(r),
      message: `${type} while ${pick(r, ['rendering', 'submitting', 'loading', 'saving'])} ${pick(r, ['checkout', 'cart', 'product page', 'account'])}`,
      level: r() < 0.9 ? 'error' : r() < 0.5 ? 'fatal' : 'warning',
      frames,
    });
  }
  return out;
}

function weightedEnvironment(random: () => number): string {
  let x = random();
  for (const [env, share] of ENVIRONMENTS) {
    if (x < share) return env;
    x -= share;
  }
  return ENVIRONMENTS[0][0];
}

/** One event body (JSON text, no id). */
export function eventBody(template: ErrorTemplate, releaseIndex: number, random: () => number, now = Date.now()): Record<string, unknown> {
  const ts = now - int(random, 1, 120_000);
  const route = pick(random, ROUTES);
  const browser = pick(random, BROWSERS);
  const user = int(random, 1, 50_000);
  const crumbs = int(random, 3, 10);
  const breadcrumbs = [];
  for (let b = 0; b < crumbs; b++) {
    const kind = pick(random, ['http', 'navigation', 'ui', 'console'] as const);
    breadcrumbs.push({
      timestamp: new Date(ts - (crumbs - b) * int(random, 200, 3000)).toISOString(),
      type: kind === 'ui' ? 'default' : kind,
      category: kind === 'http' ? 'fetch' : kind === 'ui' ? 'ui.click' : kind,
      message:
        kind === 'http'
          ? `${pick(random, ['GET', 'POST'])} https://api.shop.example.com${pick(random, ROUTES).replace(':id', String(int(random, 1, 99999)))}`
          : kind === 'navigation'
            ? `from ${pick(random, ROUTES)} to ${route}`
            : kind === 'ui'
              ? `button#${pick(random, ['checkout', 'add-to-cart', 'apply-coupon', 'pay-now'])}.btn.btn-primary`
              : `[cart] recalculated totals in ${int(random, 1, 90)}ms`,
      level: 'info',
      data:
        kind === 'http'
          ? { status_code: pick(random, [200, 200, 200, 201, 304, 404, 500]), duration_ms: int(random, 5, 900) }
          : { session_step: int(random, 1, 9) },
    });
  }
  // Line numbers move a little between releases (grouping ignores them).
  const frames = template.frames.map((f) => (f.in_app ? { ...f, lineno: (f.lineno as number) + releaseIndex * 3 } : f));
  return {
    timestamp: new Date(ts).toISOString(),
    environment: weightedEnvironment(random),
    release: RELEASES[releaseIndex],
    level: template.level,
    message: template.message,
    platform: 'javascript',
    exception: { type: template.type, value: template.value, stacktrace: frames },
    user: {
      id: `user-${user}`,
      email: `customer${user}@example.com`,
      username: `customer${user}`,
      ip_address: `10.${int(random, 0, 255)}.${int(random, 0, 255)}.${int(random, 1, 254)}`,
    },
    tags: {
      route,
      browser,
      os: pick(random, ['Windows 11', 'macOS 15.1', 'iOS 18.1', 'Android 15', 'Ubuntu 24.04']),
      region: pick(random, REGIONS),
      customer_tier: pick(random, ['free', 'plus', 'business']),
      feature_flag_new_checkout: String(random() < 0.5),
    },
    trace_id: hex(random, 32),
    breadcrumbs,
    contexts: {
      browser: { name: browser.split(' ')[0], version: browser.split(' ').at(-1) },
      os: { name: 'Windows', version: '11' },
      device: { family: 'Desktop', model: 'Unknown', screen_resolution: '1920x1080' },
      runtime: { name: 'browser' },
    },
    request: {
      url: `https://shop.example.com${route.replace(':id', String(int(random, 1, 99999)))}`,
      method: 'GET',
      headers: {
        'user-agent': `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ${browser} Safari/537.36`,
        referer: 'https://shop.example.com/',
        'accept-language': 'en-GB,en;q=0.9',
      },
    },
    sdk: { name: 'faultline.javascript', version: '1.4.0' },
  };
}

export interface EventBodies {
  bodies: Buffer[];
  averageBytes: number;
  minBytes: number;
  maxBytes: number;
  distinctErrors: number;
}

export function eventBodies(count: number): EventBodies {
  const templates = errorTemplates();
  const random = rng(7);
  const bodies: Buffer[] = [];
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const template = templates[i % templates.length];
    bodies.push(Buffer.from(JSON.stringify(eventBody(template, Math.floor(i / templates.length) % RELEASES.length, random, now))));
  }
  const sizes = bodies.map((b) => b.length);
  return {
    bodies,
    averageBytes: sizes.reduce((a, b) => a + b, 0) / sizes.length,
    minBytes: Math.min(...sizes),
    maxBytes: Math.max(...sizes),
    distinctErrors: templates.length,
  };
}

// --- events as SDKs send them (issue #30) ------------------------------------------------------

/** Where an id goes in a body template: replaced by 32 fresh hex digits in every request. */
const ID_MARK = 'f'.repeat(32);
/** Where the id of a loaded trace goes (the reads link some events to traces). */
const TRACE_MARK = 'e'.repeat(32);
/** Where an envelope's event time is written per request (IdBodies.timeSource): as long as an ISO 8601 time in years 1000–9999. */
const TIME_MARK = 'T'.repeat(24);

/** The 200 distinct errors of the SDK-like events: 20-25 frames, about half in-app (the last one unique per error). */
export function sdkErrorTemplates(count = 200): ErrorTemplate[] {
  const r = rng(20261127);
  const out: ErrorTemplate[] = [];
  for (let i = 0; i < count; i++) {
    const [type, value] = ERROR_KINDS[i % ERROR_KINDS.length];
    const frameCount = int(r, 20, 25) - 1;
    const frames: Array<Record<string, unknown>> = [];
    for (let f = 0; f < frameCount; f++) {
      if (r() < 0.5) {
        const module = pick(r, APP_MODULES);
        frames.push({ filename: `src/${module}.tsx`, function: pick(r, APP_FUNCTIONS), lineno: int(r, 10, 400), colno: int(r, 3, 80), in_app: true });
      } else {
        const [file, fns] = pick(r, LIB_FRAMES);
        frames.push({ filename: file, function: pick(r, fns), lineno: int(r, 1, 9000), colno: int(r, 1, 200), in_app: false });
      }
    }
    frames.push({
      filename: `src/features/f${i}/handler.ts`,
      function: `handle${i}`,
      lineno: int(r, 10, 200),
      colno: int(r, 3, 60),
      in_app: true,
      context_line: `  return ${pick(r, ['cart', 'order', 'session'])}.${pick(r, ['items', 'user', 'lines'])}[index].${pick(r, ['id', 'price'])};`,
    });
    out.push({ type, value: value(r), message: '', level: r() < 0.9 ? 'error' : 'fatal', frames });
  }
  return out;
}

/** One SDK-like event in both forms: the body of POST /v1/events and a Sentry event payload (an envelope item). */
export function sdkEvent(
  template: ErrorTemplate,
  releaseIndex: number,
  random: () => number,
  now: number,
  linkedTrace = false,
): { native: Record<string, unknown>; sentry: Record<string, unknown> } {
  const ts = now - int(random, 1, 120_000);
  const route = pick(random, ROUTES);
  const browser = pick(random, BROWSERS);
  const user = int(random, 1, 50_000);
  const crumbs = int(random, 11, 13);
  const breadcrumbs = [];
  for (let b = 0; b < crumbs; b++) {
    const kind = pick(random, ['http', 'navigation', 'ui', 'console'] as const);
    breadcrumbs.push({
      timestamp: new Date(ts - (crumbs - b) * int(random, 200, 3000)).toISOString(),
      type: kind === 'ui' ? 'default' : kind,
      category: kind === 'http' ? 'fetch' : kind === 'ui' ? 'ui.click' : kind,
      message:
        kind === 'http'
          ? `${pick(random, ['GET', 'POST'])} https://api.shop.example.com${pick(random, ROUTES).replace(':id', String(int(random, 1, 99999)))}`
          : kind === 'navigation'
            ? `from ${pick(random, ROUTES)} to ${route}`
            : kind === 'ui'
              ? `button#${pick(random, ['checkout', 'add-to-cart', 'pay-now'])}.btn`
              : `[cart] totals in ${int(random, 1, 90)}ms`,
      level: 'info',
      ...(kind === 'http' && { data: { status_code: pick(random, [200, 200, 201, 304, 404, 500]) } }),
    });
  }
  const frames = template.frames.map((f) => (f.in_app ? { ...f, lineno: (f.lineno as number) + releaseIndex * 3 } : f));
  const random32 = hex(random, 32);
  const traceId = linkedTrace ? TRACE_MARK : random32;
  const common = {
    environment: weightedEnvironment(random),
    release: RELEASES[releaseIndex],
    level: template.level,
    platform: 'javascript',
    user: { id: `user-${user}`, email: `customer${user}@example.com`, ip_address: `10.${int(random, 0, 255)}.${int(random, 0, 255)}.${int(random, 1, 254)}` },
    tags: {
      route,
      browser,
      os: pick(random, ['Windows 11', 'macOS 15.1', 'iOS 18.1', 'Android 15']),
      region: pick(random, REGIONS),
      customer_tier: pick(random, ['free', 'plus', 'business']),
      transaction: route,
    },
  };
  const contexts = {
    browser: { name: browser.split(' ')[0], version: browser.split(' ').at(-1) },
    os: { name: 'Windows', version: '11' },
    device: { family: 'Desktop' },
    culture: { locale: 'en-GB', timezone: 'Europe/London' },
    app: { app_start_time: new Date(ts - int(random, 60_000, 3_600_000)).toISOString() },
  };
  const request = {
    url: `https://shop.example.com${route.replace(':id', String(int(random, 1, 99999)))}`,
    method: 'GET',
    headers: {
      'user-agent': `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ${browser} Safari/537.36`,
      referer: 'https://shop.example.com/',
    },
  };
  const native = {
    id: ID_MARK,
    timestamp: new Date(ts).toISOString(),
    ...common,
    exception: { type: template.type, value: template.value, stacktrace: frames },
    trace_id: traceId,
    breadcrumbs,
    contexts,
    request,
    sdk: { name: 'sentry.javascript.browser', version: '8.42.0' },
  };
  const sentry = {
    event_id: ID_MARK,
    timestamp: ts / 1000,
    ...common,
    exception: { values: [{ type: template.type, value: template.value, mechanism: { type: 'onerror', handled: false }, stacktrace: { frames } }] },
    breadcrumbs: { values: breadcrumbs.map((b) => ({ ...b, timestamp: Date.parse(b.timestamp) / 1000 })) },
    contexts: { ...contexts, trace: { trace_id: traceId, span_id: hex(random, 16) } },
    request,
    sdk: { name: 'sentry.javascript.browser', version: '8.42.0' },
  };
  return { native, sentry };
}

/**
 * Request bodies with ids to refresh: each `ids` entry lists the offsets of one id (32 hex digits);
 * `traces` the offsets of trace ids to fill in (each its own).
 */
interface IdTemplate {
  bytes: Buffer;
  ids: number[][];
  traces: number[];
  /** Offsets of event times to write per request (only with sdkEventSets' `timeMarks`). */
  times?: number[];
}

function idOffsets(bytes: Buffer, id = ID_MARK): number[] {
  const out: number[] = [];
  const mark = Buffer.from(id);
  for (let at = bytes.indexOf(mark); at !== -1; at = bytes.indexOf(mark, at + mark.length)) out.push(at);
  return out;
}

/**
 * Bodies handed out in turn, each a fresh copy with new random ids (an SDK gives every event its
 * own id, and the service stores a known id once): the copy and the hex are the sender's work.
 */
export class IdBodies {
  private next = 0;
  private readonly pool = Buffer.alloc(1 << 16);
  private poolAt = this.pool.length;

  constructor(
    private readonly templates: IdTemplate[],
    /** Events per body. */
    readonly itemsPerBody: number,
  ) {}

  get count(): number {
    return this.templates.length;
  }

  get averageBytes(): number {
    return this.templates.reduce((n, t) => n + t.bytes.length, 0) / this.templates.length;
  }

  /** Body sizes, sorted. */
  sizes(): number[] {
    return this.templates.map((t) => t.bytes.length).sort((a, b) => a - b);
  }

  private freshHex(): string {
    if (this.poolAt + 16 > this.pool.length) {
      randomFillSync(this.pool);
      this.poolAt = 0;
    }
    this.poolAt += 16;
    return this.pool.toString('hex', this.poolAt - 16, this.poolAt);
  }

  /** Where the linked events' trace ids come from (the reads phase: ids of loaded traces); random without. */
  traceSource?: () => string;

  /** The time (epoch ms) of each event, asked per event in the order sent (templates made with `timeMarks`). */
  timeSource?: () => number;

  nextBody(): Buffer {
    return this.nextBodyWithIds().body;
  }

  /** A fresh body and the ids written into it (the reads phase keeps them to request the events). */
  nextBodyWithIds(): { body: Buffer; ids: string[] } {
    const template = this.templates[this.next++ % this.templates.length];
    const body = Buffer.from(template.bytes);
    const ids: string[] = [];
    for (const offsets of template.ids) {
      const id = this.freshHex();
      ids.push(id);
      for (const at of offsets) body.write(id, at, 'latin1');
    }
    for (const at of template.traces) body.write(this.traceSource?.() ?? this.freshHex(), at, 'latin1');
    for (const at of template.times ?? []) body.write(new Date(this.timeSource?.() ?? Date.now()).toISOString(), at, 'latin1');
    return { body, ids };
  }
}

/** Sentry envelope bytes: a header line, then per item its header line (with length) and payload. */
export function envelopeOf(header: Record<string, unknown>, items: Array<[Record<string, unknown>, Buffer]>): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const [itemHeader, payload] of items)
    parts.push(Buffer.from(`${JSON.stringify({ ...itemHeader, length: payload.length })}\n`), payload, Buffer.from('\n'));
  return Buffer.concat(parts);
}

export interface SdkEventSets {
  /** One event per POST /v1/events. */
  single: IdBodies;
  /** Sentry envelopes of 1 and of 10 event items. */
  envelope1: IdBodies;
  envelope10: IdBodies;
  distinctErrors: number;
}

/**
 * `count` SDK-like events (200 errors over 3 releases), as /v1/events bodies and as envelopes of 1
 * and 10 items made of the same events. `now` sets their timestamps (the reads phase spreads them).
 */
export function sdkEventSets(
  count: number,
  options: {
    now?: number;
    spreadMs?: number;
    envelopeItems?: number;
    /** Share of events whose trace id is filled in per request (IdBodies.traceSource). */ linkedTraces?: number;
    /** The envelopes' event times are written per request (IdBodies.timeSource) instead of fixed in the template. */
    timeMarks?: boolean;
  } = {},
): SdkEventSets {
  const templates = sdkErrorTemplates();
  const random = rng(5);
  const linking = rng(6);
  const now = options.now ?? Date.now();
  const events = Array.from({ length: count }, (_, i) => {
    const at = options.spreadMs ? now - options.spreadMs + Math.floor((i / count) * options.spreadMs) : now;
    return sdkEvent(templates[i % templates.length], Math.floor(i / templates.length) % RELEASES.length, random, at, linking() < (options.linkedTraces ?? 0));
  });
  const single = events.map(({ native }) => {
    const bytes = Buffer.from(JSON.stringify(native));
    return { bytes, ids: [idOffsets(bytes)], traces: idOffsets(bytes, TRACE_MARK) };
  });
  const envelopes = (k: number): IdTemplate[] => {
    const out: IdTemplate[] = [];
    for (let i = 0; i + k <= events.length; i += k) {
      const items = events
        .slice(i, i + k)
        .map(({ sentry }): [Record<string, unknown>, Buffer] => [
          { type: 'event', content_type: 'application/json' },
          Buffer.from(JSON.stringify(options.timeMarks ? { ...sentry, timestamp: TIME_MARK } : sentry)),
        ]);
      const bytes = envelopeOf(
        { event_id: ID_MARK, sent_at: new Date(now).toISOString(), sdk: { name: 'sentry.javascript.browser', version: '8.42.0' } },
        items,
      );
      const at = idOffsets(bytes);
      // The header names the first item's event: one id at two places, then one per item.
      out.push({
        bytes,
        ids: [[at[0], at[1]], ...at.slice(2).map((o) => [o])],
        traces: idOffsets(bytes, TRACE_MARK),
        ...(options.timeMarks ? { times: idOffsets(bytes, TIME_MARK) } : {}),
      });
    }
    return out;
  };
  return {
    single: new IdBodies(single, 1),
    envelope1: new IdBodies(envelopes(1), 1),
    envelope10: new IdBodies(envelopes(options.envelopeItems ?? 10), options.envelopeItems ?? 10),
    distinctErrors: templates.length,
  };
}

// --- spans -------------------------------------------------------------------------------------

const SERVICES = ['checkout-api', 'catalog-api', 'orders-worker', 'gateway'] as const;

/** The spans of one BatchSpanProcessor export: traces of 5-20 spans, `spansPerBatch` spans in all. */
function recordBatch(serviceIndex: number, spansPerBatch: number, random: () => number): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const service = SERVICES[serviceIndex % SERVICES.length];
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': service,
      'service.version': '5.2.1',
      'service.instance.id': `${service}-7f9c4d-${hex(random, 5)}`,
      'deployment.environment.name': 'production',
      'host.name': `ip-10-0-${int(random, 0, 255)}-${int(random, 0, 255)}.eu-west-1.compute.internal`,
      'process.pid': int(random, 1000, 60000),
      'process.runtime.name': 'nodejs',
      'process.runtime.version': '20.19.0',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.version': '2.0.1',
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('@opentelemetry/instrumentation-http', '0.57.0');
  const base = Date.now() - 60_000;
  let made = 0;
  while (made < spansPerBatch) {
    const size = Math.min(spansPerBatch - made, int(random, 5, 20));
    const route = pick(random, ROUTES);
    const start = base + int(random, 0, 50_000);
    const root = tracer.startSpan(`GET ${route}`, {
      kind: SpanKind.SERVER,
      startTime: start,
      attributes: {
        'http.request.method': 'GET',
        'http.route': route,
        'url.path': route.replace(':id', String(int(random, 1, 99999))),
        'url.scheme': 'https',
        'server.address': 'api.shop.example.com',
        'server.port': 443,
        'http.response.status_code': pick(random, [200, 200, 200, 201, 404, 500]),
        'user_agent.original': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
        'client.address': `10.1.${int(random, 0, 255)}.${int(random, 1, 254)}`,
        'network.protocol.version': '1.1',
      },
    });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    let t = start + 1;
    const children = [];
    for (let c = 1; c < size; c++) {
      const db = random() < 0.5;
      const parent = c > 2 && random() < 0.3 ? trace.setSpan(ctx, children[int(random, 0, children.length - 1)]) : ctx;
      const span = tracer.startSpan(
        db
          ? `SELECT shop.${pick(random, ['orders', 'carts', 'products', 'users'])}`
          : `${pick(random, ['GET', 'POST'])} ${pick(random, ['pricing', 'inventory', 'payments', 'auth'])}-svc`,
        {
          kind: db ? SpanKind.CLIENT : random() < 0.5 ? SpanKind.CLIENT : SpanKind.INTERNAL,
          startTime: t,
          attributes: db
            ? {
                'db.system': 'postgresql',
                'db.namespace': 'shop',
                'db.operation.name': 'SELECT',
                'db.collection.name': pick(random, ['orders', 'carts', 'products', 'users']),
                'db.query.text':
                  'SELECT id, status, total_cents, currency, updated_at FROM orders WHERE customer_id = $1 AND status = ANY($2) ORDER BY updated_at DESC LIMIT 20',
                'server.address': 'orders-db.internal',
                'server.port': 5432,
                'db.response.returned_rows': int(random, 0, 20),
                'network.peer.address': `10.2.0.${int(random, 1, 254)}`,
                'thread.id': int(random, 1, 16),
              }
            : {
                'http.request.method': 'POST',
                'url.full': `http://${pick(random, ['pricing', 'inventory', 'payments'])}-svc.internal:8080/v2/quote?currency=EUR&items=${int(random, 1, 9)}`,
                'server.address': 'pricing-svc.internal',
                'server.port': 8080,
                'http.response.status_code': 200,
                'http.request.body.size': int(random, 100, 4000),
                'http.response.body.size': int(random, 100, 20000),
                'network.protocol.name': 'http',
                'rpc.retries': int(random, 0, 2),
                'cache.hit': random() < 0.7,
              },
        },
        parent,
      );
      const duration = int(random, 1, 80);
      if (random() < 0.02) span.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream returned 503' });
      span.end(t + duration);
      children.push(span);
      t += Math.max(1, Math.floor(duration / 2));
    }
    root.end(t + int(random, 1, 30));
    made += size;
  }
  const spans = exporter.getFinishedSpans();
  void provider.shutdown();
  return spans;
}

/** An encoded OTLP request and where each of its ids sits in the bytes. */
interface SpanTemplate {
  bytes: Buffer;
  spans: number;
  /** Offsets of every occurrence of each distinct trace id (16 bytes) and span id (8 bytes). */
  traceIdOffsets: number[][];
  spanIdOffsets: number[][];
  /** Offsets of every span's start and end time (fixed64 nanoseconds, little-endian). */
  timeOffsets: number[];
  /** When the template's spans were recorded (ms): a request's times move by the time since. */
  recordedAt: number;
}

function offsetsOf(bytes: Buffer, id: Buffer): number[] {
  const out: number[] = [];
  for (let at = bytes.indexOf(id); at !== -1; at = bytes.indexOf(id, at + 1)) out.push(at);
  return out;
}

function buildTemplate(serviceIndex: number, spansPerBatch: number, random: () => number): SpanTemplate {
  const spans = recordBatch(serviceIndex, spansPerBatch, random);
  const encoded = ProtobufTraceSerializer.serializeRequest(spans);
  if (!encoded) throw new Error('the OTLP serializer produced nothing');
  const bytes = Buffer.from(encoded);
  const traceIds = [...new Set(spans.map((s) => s.spanContext().traceId))];
  const spanIds = [...new Set(spans.map((s) => s.spanContext().spanId))];
  const traceIdOffsets = traceIds.map((id) => offsetsOf(bytes, Buffer.from(id, 'hex')));
  const spanIdOffsets = spanIds.map((id) => offsetsOf(bytes, Buffer.from(id, 'hex')));
  // Span.start_time_unix_nano is field 7 and end_time_unix_nano field 8, both fixed64 (tags 0x39, 0x41).
  const timeOffsets: number[] = [];
  for (const span of spans) {
    for (const [tag, time] of [
      [0x39, span.startTime],
      [0x41, span.endTime],
    ] as const) {
      const field = Buffer.alloc(9);
      field[0] = tag;
      field.writeBigUInt64LE(BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]), 1);
      const at = offsetsOf(bytes, field);
      if (at.length === 0) throw new Error('a span time was not found in the encoded request');
      for (const offset of at) if (!timeOffsets.includes(offset + 1)) timeOffsets.push(offset + 1);
    }
  }
  // Every trace id is on each of its spans; every span id on its span and its children.
  const traceRefs = traceIdOffsets.reduce((n, o) => n + o.length, 0);
  if (traceRefs !== spans.length) throw new Error(`trace ids found ${traceRefs} times in the encoded request, expected ${spans.length}`);
  return { bytes, spans: spans.length, traceIdOffsets, spanIdOffsets, timeOffsets, recordedAt: Date.now() };
}

export class SpanPayloads {
  private readonly templates: SpanTemplate[];
  private next = 0;
  private readonly pool = Buffer.alloc(1 << 20);
  private poolAt = this.pool.length;

  constructor(
    readonly spansPerRequest = 512,
    variants = 4,
  ) {
    const random = rng(99);
    this.templates = Array.from({ length: variants }, (_, i) => buildTemplate(i, spansPerRequest, random));
  }

  get averageBytes(): number {
    return this.templates.reduce((n, t) => n + t.bytes.length, 0) / this.templates.length;
  }

  private randomBytes(n: number): Buffer {
    if (this.poolAt + n > this.pool.length) {
      randomFillSync(this.pool);
      this.poolAt = 0;
    }
    const out = this.pool.subarray(this.poolAt, this.poolAt + n);
    this.poolAt += n;
    return out;
  }

  /** A fresh request body: a template with every trace and span id replaced by new random ones. */
  nextBody(): Buffer {
    return this.nextBodyWithTraceIds().body;
  }

  /** A fresh request body and its trace ids (hex). */
  nextBodyWithTraceIds(): { body: Buffer; traceIds: string[] } {
    const template = this.templates[this.next++ % this.templates.length];
    const body = Buffer.from(template.bytes);
    const traceIds: string[] = [];
    for (const offsets of template.traceIdOffsets) {
      const id = this.randomBytes(16);
      traceIds.push(id.toString('hex'));
      for (const at of offsets) id.copy(body, at);
    }
    for (const offsets of template.spanIdOffsets) {
      const id = this.randomBytes(8);
      for (const at of offsets) id.copy(body, at);
    }
    // Spans that have just ended, as an SDK exports them (not the same start times in every
    // request): the DocStore keys spans by start time, and the times decide where they land.
    const shift = BigInt(Date.now() - template.recordedAt) * 1_000_000n;
    for (const at of template.timeOffsets) body.writeBigUInt64LE(body.readBigUInt64LE(at) + shift, at);
    return { body, traceIds };
  }

  /** Decodes a patched body and checks it holds the expected spans with fresh, consistent ids. */
  selfCheck(): void {
    const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const spansA = spansOf(decodeOtlpTraces(this.nextBody()));
    const spansB = spansOf(decodeOtlpTraces(this.nextBody()));
    if (spansA.length !== this.spansPerRequest) throw new Error(`patched request decodes to ${spansA.length} spans, expected ${this.spansPerRequest}`);
    const ids = new Set(spansA.map((s) => hexOf(s.span_id)));
    if (ids.size !== spansA.length) throw new Error('patched request has repeated span ids');
    const orphans = spansA.filter((s) => s.parent_span_id.length && !ids.has(hexOf(s.parent_span_id)));
    if (orphans.length) throw new Error(`patched request broke ${orphans.length} parent links`);
    if (spansB.some((s) => ids.has(hexOf(s.span_id)))) throw new Error('two patched requests share span ids');
  }
}
