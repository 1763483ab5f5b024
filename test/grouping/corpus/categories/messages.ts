// Frameless events: errors logged without a stack and log messages (`message`, empty exception
// value, the logger's name as the type). What varies per occurrence is data: request and trace
// ids, quoted user input, numbers with units, durations, sizes, hex and base64 tokens, UUIDs,
// e-mails, IPs, dates, provider ids. Hard negatives: messages whose constant part differs by a
// token that looks variable — ERR_404 vs ERR_500, utf8 vs latin1, reading 'map' vs 'length'.
import { App, envelope, occurrences } from '../common.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry, CorpusEvent } from '../types.js';

const CATEGORY = 'messages';

const api = new App('shop-api', ['2025.4.0', '2025.4.2', '2025.5.0', '2025.5.1', '2025.5.2']);
const web = new App('shop-web', ['3.8.0', '3.8.1', '3.9.0', '3.9.2', '3.10.0']);

// ---------------------------------------------------------------------------------------------
// Variable data
// ---------------------------------------------------------------------------------------------

const requestId = (rng: Random) => `req_${rng.base62(14)}`;
const traceId = (rng: Random) => rng.hex(32);
const ms = (rng: Random, lo: number, hi: number) => `${rng.int(lo, hi)}ms`;
const email = (rng: Random) =>
  `${rng.pick(['jane.doe', 'li.wei', 'omar', 'ana.silva', 'k.nakamura', 'p.ortiz'])}${rng.chance(0.5) ? rng.int(1, 99) : ''}@${rng.pick(['example.com', 'mail.example.org', 'corp.example.net'])}`;
const ipv4 = (rng: Random) => `${rng.pick([203, 198, 192])}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
const ipv6 = (rng: Random) => `2001:db8:${rng.hex(4)}:${rng.hex(2)}::${rng.hex(3)}`;
const isoTime = (rng: Random) => new Date(Date.UTC(2025, 4, rng.int(1, 31), rng.int(0, 23), rng.int(0, 59), rng.int(0, 59))).toISOString().replace('.000', '');
const size = (rng: Random) => rng.pick([`${rng.int(11, 48)}.${rng.int(0, 9)} MB`, `${rng.int(10_500_000, 49_000_000)} bytes`, `${rng.int(11, 48)}MB`]);
const base64url = (rng: Random, n: number) => rng.base64url(n);

/** What a user typed, as a Python repr quotes it. */
const userNumber = (rng: Random) => rng.pick(["'NaN'", "'1,5'", `"1'000"`, "'12.5 €'", "''", "'n/a'", "'--'", "'3 '"]);

// ---------------------------------------------------------------------------------------------
// Bugs
// ---------------------------------------------------------------------------------------------

interface MessageBug {
  id: string;
  count: readonly [number, number];
  app?: App;
  platform?: string;
  /** `log`: a log message (message set, empty value, the logger as type); otherwise an exception without frames. */
  type: string | { log: string };
  level?: CorpusEvent['level'];
  text: (rng: Random) => string;
}

function messageBug(bug: MessageBug): CorpusEntry[] {
  const app = bug.app ?? api;
  return occurrences(CATEGORY, bug.id, bug.count, (rng) => {
    const release = app.pickRelease(rng);
    const text = bug.text(rng);
    const log = typeof bug.type !== 'string';
    return envelope(rng, {
      release: app.release(release),
      platform: bug.platform ?? (app === web ? 'javascript' : 'python'),
      level: bug.level ?? (log ? 'warning' : 'error'),
      ...(log && { message: text }),
      exception: { type: typeof bug.type === 'string' ? bug.type : bug.type.log, value: log ? '' : text },
    });
  });
}

const catalogError = (status: string) => (rng: Random) => `Request to catalog failed: ${status} (GET /v2/products/${rng.int(1000, 99999)}, ${requestId(rng)})`;

const BUGS: MessageBug[] = [
  {
    id: 'checkout-slow-request',
    count: [6, 12],
    type: { log: 'shop.perf' },
    text: (rng) => `Slow request ${requestId(rng)}: POST /api/checkout took ${ms(rng, 1001, 9000)} (threshold 1000ms)`,
  },
  {
    id: 'payment-gateway-no-response',
    count: [6, 12],
    type: 'GatewayTimeout',
    text: (rng) => `Payment gateway did not respond after ${ms(rng, 10_000, 30_000)} (attempt ${rng.int(1, 3)} of 3, trace ${traceId(rng)})`,
  },
  {
    id: 'import-price-not-a-number',
    count: [6, 12],
    type: 'ValueError',
    text: (rng) => `could not convert string to float: ${userNumber(rng)}`,
  },
  {
    id: 'import-date-wrong-format',
    count: [5, 12],
    type: 'ValueError',
    text: (rng) =>
      `time data '${rng.pick([`${rng.int(10, 28)}/05/2025`, `05.${rng.int(10, 28)}.2025`, `May ${rng.int(1, 28)}, 2025`])}' does not match format '%Y-%m-%d'`,
  },
  {
    id: 'upload-too-large',
    count: [6, 12],
    type: 'PayloadTooLarge',
    text: (rng) =>
      `Upload rejected: file "${rng.pick(['IMG_', 'DSC', 'scan-'])}${rng.int(1000, 9999)}.${rng.pick(['HEIC', 'jpg', 'pdf', 'mov'])}" is ${size(rng)}, limit is 10 MB`,
  },
  {
    id: 'worker-memory-soft-limit',
    count: [6, 12],
    type: { log: 'shop.worker' },
    text: (rng) => `Worker ${rng.int(1, 8)} memory at ${rng.pick([`${rng.int(481, 999)}MB`, `1.${rng.int(0, 9)}GB`])} exceeds soft limit 480MB`,
  },
  {
    id: 'price-cache-stampede',
    count: [5, 12],
    type: { log: 'shop.cache' },
    text: (rng) => `Cache stampede on key product:${rng.int(1000, 99999)}:price (${rng.int(20, 90)} concurrent misses in ${ms(rng, 50, 900)})`,
  },
  {
    id: 'jwt-invalid-signature',
    count: [6, 12],
    type: 'InvalidSignatureError',
    text: (rng) => `invalid signature for token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${base64url(rng, 48)}.${base64url(rng, 43)}`,
  },
  {
    id: 'webhook-signature-mismatch',
    count: [6, 12],
    type: 'SignatureMismatch',
    text: (rng) => `Webhook signature mismatch: expected sha256=${rng.hex(64)}, got sha256=${rng.hex(64)}`,
  },
  {
    id: 'directory-user-not-found',
    count: [6, 12],
    type: 'LookupError',
    text: (rng) => `User ${email(rng)} not found in directory`,
  },
  {
    id: 'search-rate-limited',
    count: [6, 12],
    type: { log: 'shop.ratelimit' },
    text: (rng) => `Rate limit exceeded for ${rng.chance(0.75) ? ipv4(rng) : ipv6(rng)} on /api/search (${rng.int(121, 400)} requests in 60s)`,
  },
  {
    id: 'session-expired',
    count: [6, 12],
    type: 'SessionExpired',
    text: (rng) => `Session ${rng.uuid()} expired at ${isoTime(rng)}`,
  },
  {
    id: 'catalog-err-404',
    count: [6, 12],
    type: 'CatalogError',
    text: catalogError('ERR_404'),
  },
  {
    // The same message but for the status: another failure.
    id: 'catalog-err-500',
    count: [6, 12],
    type: 'CatalogError',
    text: catalogError('ERR_500'),
  },
  {
    id: 'mail-decode-utf8',
    count: [6, 12],
    type: 'DecodeError',
    text: (rng) => `Failed to decode message body as utf8 (offset ${rng.int(10, 90_000)}, message <${rng.base62(16)}@mail.example.org>)`,
  },
  {
    id: 'mail-decode-latin1',
    count: [4, 10],
    type: 'DecodeError',
    text: (rng) => `Failed to decode message body as latin1 (offset ${rng.int(10, 90_000)}, message <${rng.base62(16)}@mail.example.org>)`,
  },
  {
    // Errors relayed from a WebView bridge without their stacks.
    id: 'bridge-read-map',
    count: [6, 12],
    app: web,
    type: 'TypeError',
    text: () => "Cannot read properties of undefined (reading 'map')",
  },
  {
    id: 'bridge-read-length',
    count: [6, 12],
    app: web,
    type: 'TypeError',
    text: () => "Cannot read properties of undefined (reading 'length')",
  },
  {
    id: 'orders-deadlock',
    count: [6, 12],
    type: 'DeadlockDetected',
    text: (rng) => {
      const [a, b] = [rng.int(10_000, 30_000), rng.int(10_000, 30_000)];
      const [ta, tb] = [rng.int(88_000_000, 89_000_000), rng.int(88_000_000, 89_000_000)];
      return `deadlock detected\nDETAIL:  Process ${a} waits for ShareLock on transaction ${tb}; blocked by process ${b}.\nProcess ${b} waits for ShareLock on transaction ${ta}; blocked by process ${a}.\nHINT:  See server log for query details.`;
    },
  },
  {
    id: 'disk-space-low',
    count: [5, 12],
    type: { log: 'shop.ops' },
    text: (rng) =>
      `Disk /var/lib/shop ${rng.int(90, 99)}.${rng.int(0, 9)}% full (${rng.pick([`${rng.int(1, 9)}.${rng.int(0, 9)}GiB`, `${rng.int(200, 999)}MiB`])} free)`,
  },
  {
    id: 'export-job-over-budget',
    count: [5, 12],
    type: { log: 'shop.jobs' },
    text: (rng) => `Job nightly-export exceeded its 15m budget (ran ${rng.int(15, 59)}m${rng.int(0, 59)}s)`,
  },
  {
    id: 'receipt-mail-bounced',
    count: [6, 12],
    type: { log: 'shop.mail' },
    text: (rng) => `Delivery to ${email(rng)} failed: 550 5.1.1 user unknown (queue id ${rng.base62(12)})`,
  },
  {
    id: 'media-upload-slow',
    count: [5, 12],
    type: { log: 'shop.media' },
    text: (rng) =>
      `Upload of s3://shop-media/products/${rng.int(1000, 99999)}/IMG_${rng.int(1000, 9999)}.jpg (${rng.int(1, 9)}.${rng.int(0, 9)} MB) took ${rng.int(10, 40)}.${rng.int(0, 9)}s`,
  },
  {
    id: 'tls-certificate-expiring',
    count: [4, 10],
    type: { log: 'shop.ops' },
    text: (rng) => {
      const days = rng.int(1, 14);
      const day = new Date(Date.UTC(2025, 5, days, rng.int(0, 23), rng.int(0, 59), rng.int(0, 59)));
      return `Certificate for api.shop.example.com expires on ${day.toUTCString()} (in ${days} days)`;
    },
  },
  {
    id: 'order-lookup-missing',
    count: [6, 12],
    type: 'OrderNotFound',
    text: (rng) => `Order #A-${rng.int(10_000, 99_999)} not found for customer cus_${rng.base62(14)}`,
  },
];

export const messages: Category = {
  name: CATEGORY,
  description:
    'Frameless errors and log messages whose values carry request/trace ids, quoted input, numbers with units, sizes, hex/base64 tokens, UUIDs, e-mails, IPs, dates; ERR_404 vs ERR_500, utf8 vs latin1',
  build: (): CorpusEntry[] => BUGS.flatMap(messageBug),
};
