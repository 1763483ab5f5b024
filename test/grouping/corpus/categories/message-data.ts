// Messages that carry data, on every SDK: amounts in any currency format (`$1,234.56`, `12,50 €`,
// `EUR 99.00`), numbers with thousands separators, file paths under a per-deploy directory (Unix
// and Windows), MAC addresses, ULIDs, host:port pairs — errors logged without a stack trace, where
// the message is all grouping has. Hard negatives: the same sentence about another kind of thing
// (an order vs a cart), another limit exceeded.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { sdkCategory, type SdkBug } from '../sdk.js';

const app = new App('billing', ['8.0.0', '8.0.1', '8.1.0']);
const ULID = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const ulid = (rng: Random) => `01J${rng.chars(ULID, 23)}`;
function amount(rng: Random): string {
  const value = rng.int(1, 250_000) / (rng.chance(0.3) ? 1 : 100);
  const text = (grouping: string, decimal: string) => {
    const [whole, cents] = value.toFixed(rng.chance(0.3) ? 0 : 2).split('.');
    return whole.replace(/\B(?=(\d{3})+$)/g, grouping) + (cents !== undefined ? decimal + cents : '');
  };
  return rng.pick([`$${text(',', '.')}`, `${text('.', ',')} €`, `EUR ${text(',', '.')}`, `£${text(',', '.')}`, `${text(',', '.')} USD`]);
}
const mac = (rng: Random) => Array.from({ length: 6 }, () => rng.hex(2).toUpperCase()).join(':');

function bug(id: string, platform: string, type: string, text: (rng: Random, release: number) => string): SdkBug {
  return { id, count: [6, 14], make: (rng, release) => ({ platform, exception: { type, value: text(rng, release) } }) };
}

const BUGS: SdkBug[] = [
  bug('charge-over-limit', 'ruby', 'Billing::LimitExceeded', (rng) => `Charge of ${amount(rng)} exceeds the card's limit of ${amount(rng)}`),
  bug(
    'refund-over-captured',
    'php',
    'App\\Exceptions\\RefundRejected',
    (rng) => `Refund of ${amount(rng)} is more than the ${amount(rng)} captured on payment ${ulid(rng)}`,
  ),
  bug('order-not-found-ulid', 'elixir', 'Ecto.NoResultsError', (rng) => `expected at least one result but got none in query: order ${ulid(rng)}`),
  bug('cart-not-found-ulid', 'elixir', 'Ecto.NoResultsError', (rng) => `expected at least one result but got none in query: cart ${ulid(rng)}`),
  bug(
    'export-write-denied',
    'php',
    'ErrorException',
    (rng, release) =>
      `file_put_contents(/var/www/billing/releases/2025050${release + 1}${rng.digits(6)}/storage/exports/${rng.hex(8)}.csv): Failed to open stream: Permission denied`,
  ),
  bug(
    'temp-file-locked',
    'csharp',
    'System.IO.IOException',
    (rng) =>
      `The process cannot access the file 'C:\\Users\\${rng.pick(['svc-billing', 'jdoe', 'ci'])}\\AppData\\Local\\Temp\\${rng.hex(8)}.tmp' because it is being used by another process.`,
  ),
  bug(
    'printer-unreachable',
    'dart',
    'SocketException',
    (rng) => `Printer ${mac(rng)} unreachable at 192.168.${rng.int(0, 9)}.${rng.int(2, 250)}:${rng.pick([9100, 515])}`,
  ),
  bug(
    'rows-over-quota',
    'csharp',
    'Shop.Billing.QuotaExceededException',
    (rng) => `Import has ${rng.int(1, 9)},${rng.digits(3)},${rng.digits(3)} rows; the plan allows ${rng.int(1, 999)},${rng.digits(3)}`,
  ),
  bug(
    'invoice-mail-bounced',
    'ruby',
    'Net::SMTPFatalError',
    (rng) => `550 5.1.1 <${rng.pick(['ann', 'bo', 'chen'])}.${rng.digits(3)}@${rng.pick(['example.com', 'mail.example.org'])}>: Recipient address rejected`,
  ),
];

export const messageData = sdkCategory(
  'message-data',
  'Messages with amounts, grouped numbers, deploy paths, MAC addresses, ULIDs and host:port on every SDK, without stack traces',
  app,
  'other',
  BUGS,
);
