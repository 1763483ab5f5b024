// Whether an uptime check may target a URL, judged when the monitor is created or changed: a
// literal private, loopback, link-local or metadata address, `localhost`, or a name that resolves to
// one is refused unless allow_private_destinations is set. Each check is judged again on the
// address it connects to (probe.ts), so a name that changes what it resolves to is caught there.
import { lookup } from 'node:dns/promises';
import { refusedAddress } from '../../processors/alerting/destinations.js';

export async function destinationProblem(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refusal = (address: string) =>
    `${address === host ? `${host} is` : `${host} resolves to ${address},`} a private, loopback, link-local or metadata address; set monitors.allow_private_destinations to allow it`;
  if (host === 'localhost' || host.endsWith('.localhost')) return refusal('127.0.0.1');
  if (refusedAddress(host)) return refusal(host);
  try {
    for (const { address } of await lookup(host, { all: true })) if (refusedAddress(address)) return refusal(address);
  } catch {
    // A name that does not resolve now may later; every check is held to the guard on connect.
  }
  return undefined;
}
