// Where a webhook or Slack notification may go. Link-local and cloud metadata addresses (where a
// cloud instance's credentials are one GET away) and loopback are refused unless the processor is
// configured with allow_private_destinations. The check is made on the address actually connected
// to — a literal IP, or every address the host name resolves to — so a DNS name cannot point a
// rule at them either.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const refused = new BlockList();
refused.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, incl. 169.254.169.254 (AWS, GCP, Azure metadata)
refused.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
refused.addSubnet('0.0.0.0', 8, 'ipv4'); // "this host"
refused.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
refused.addSubnet('fe80::', 10, 'ipv6'); // link-local
refused.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
refused.addAddress('::1', 'ipv6');
refused.addAddress('::', 'ipv6');

export class DestinationRefusedError extends Error {
  constructor(address: string) {
    super(`destination ${address} is a loopback, link-local or cloud metadata address (set allow_private_destinations to allow it)`);
    this.name = 'DestinationRefusedError';
  }
}

/** Why an address may not be sent to, or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const plain = mapped ?? address.replace(/^\[|\]$/g, '');
  const family = isIP(plain);
  if (family === 0) return undefined;
  return refused.check(plain, family === 4 ? 'ipv4' : 'ipv6') ? plain : undefined;
}

/** Throws DestinationRefusedError for a URL whose host is a refused literal address. */
export function checkLiteralHost(url: URL): void {
  const address = refusedAddress(url.hostname);
  if (address) throw new DestinationRefusedError(address);
}

/** A `lookup` for http.request that refuses a host name resolving to a refused address. */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 4);
    const bad = addresses.map((a) => refusedAddress(a.address)).find((a) => a !== undefined);
    if (bad) return callback(new DestinationRefusedError(bad), '', 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0];
    callback(null, first.address, first.family);
  });
};
