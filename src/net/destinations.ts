// Where the service may send a request a user configured (alert webhooks and Slack): public
// addresses only, unless the operator opts in with allow_private_destinations. An address is
// public when no IANA special-purpose range holds it — private (RFC 1918), shared (CGNAT),
// loopback, link-local (and the cloud metadata addresses in it), unique-local, multicast,
// broadcast, documentation, benchmarking, reserved — including those IPv4 ranges seen through
// IPv6 (IPv4-mapped, NAT64, 6to4). Ranges are matched by node:net's BlockList; nothing here
// parses an address by hand.
//
// A URL is checked twice: when a rule is saved (its literal address, or every address its host
// name resolves to) and when a request is made, on the very addresses the socket connects to — the
// `lookup` below resolves once, checks, and hands the socket those checked addresses, so a name
// that resolves to something else by then (DNS rebinding) is refused before any connection.
import { Resolver } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Host name to addresses (IPv4 and IPv6 text). Rejects when the name does not resolve. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

// [network, prefix length, what it is] — IANA's IPv4 special-purpose registry, multicast and the reserved block.
const SPECIAL_IPV4: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (incl. cloud metadata)'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (incl. broadcast)'],
];

// IPv6 ranges refused whatever follows; public IPv6 is otherwise global unicast (2000::/3).
const SPECIAL_IPV6: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 96, 'unspecified, loopback or IPv4-compatible'],
  ['::ffff:0:0:0', 96, 'IPv4-translated'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments (incl. Teredo)'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing'],
  ['fc00::', 7, 'unique-local (incl. cloud metadata)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const refused = new BlockList();
// Prefixes that carry an IPv4 address, refused when that address would be.
const IPV4_CARRIERS: ReadonlyArray<readonly [(ipv4: string) => string, number]> = [
  [(ipv4) => `::ffff:${ipv4}`, 96], // IPv4-mapped
  [(ipv4) => `64:ff9b::${ipv4}`, 96], // NAT64 (RFC 6052)
  [(ipv4) => `2002:${sixToFourGroups(ipv4)}::`, 16], // 6to4
];
for (const [network, prefix] of SPECIAL_IPV4) {
  refused.addSubnet(network, prefix, 'ipv4');
  for (const [carry, offset] of IPV4_CARRIERS) refused.addSubnet(carry(network), offset + prefix, 'ipv6');
}
for (const [network, prefix] of SPECIAL_IPV6) refused.addSubnet(network, prefix, 'ipv6');
const routable = new BlockList();
routable.addSubnet('2000::', 3, 'ipv6');
routable.addSubnet('::ffff:0:0', 96, 'ipv6');
routable.addSubnet('64:ff9b::', 96, 'ipv6');

/** The two 16-bit groups of a dotted IPv4 network, as 6to4 embeds them (10.0.0.0 → "a00:0"). */
function sixToFourGroups(ipv4: string): string {
  const [a, b, c, d] = ipv4.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** Whether an IP address (IPv4 or IPv6 text, brackets allowed) is public: not in any range above. */
export function isPublicAddress(address: string): boolean {
  const plain = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (plain.includes('%')) return false; // a scoped (zone) address is link-local by definition
  const family = isIP(plain);
  if (family === 4) return !refused.check(plain, 'ipv4');
  if (family === 6) return routable.check(plain, 'ipv6') && !refused.check(plain, 'ipv6');
  return false;
}

/** Names that mean this machine whatever DNS says (RFC 6761). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A destination that is not public, and what it is: a literal address, localhost, or a name that resolves to one. */
export class DestinationRefusedError extends Error {
  constructor(what: string) {
    super(`${what} (refused unless the alerting processor sets allow_private_destinations: true)`);
    this.name = 'DestinationRefusedError';
  }
}

const RESOLVE_TIMEOUT_MS = 2_000;
/** How long saving a rule waits for a name's addresses before taking it as not resolving (yet). */
const SAVE_RESOLVE_LIMIT_MS = 5_000;

function withinTime<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Resolves through c-ares (dns.promises.Resolver), not getaddrinfo: a slow name server then
 * holds no libuv thread (those also hash passwords and read files), and each query gives up in
 * time. A name with neither A nor AAAA records rejects.
 */
export function systemResolver(timeoutMs = RESOLVE_TIMEOUT_MS): ResolveHost {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length === 0) throw v4.status === 'rejected' ? v4.reason : new Error(`${hostname} has no addresses`);
    return addresses;
  };
}

export interface DestinationPolicy {
  /** Allow every address (allow_private_destinations): no check at all. */
  allowPrivate: boolean;
  /** How host names are resolved, for the check and then the connection. Tests put their own resolver here. */
  resolve: ResolveHost;
}

export class DestinationGuard {
  constructor(readonly policy: DestinationPolicy = { allowPrivate: false, resolve: systemResolver() }) {}

  /**
   * When a rule is saved: the refused address a URL's host is or resolves to, or undefined. A
   * name that does not resolve (yet) passes: the request will be checked again when it is made.
   */
  async refusal(url: URL): Promise<DestinationRefusedError | undefined> {
    if (this.policy.allowPrivate) return undefined;
    const literal = this.literalRefusal(url);
    if (literal !== 'name') return literal;
    const addresses = await withinTime(this.policy.resolve(url.hostname), SAVE_RESOLVE_LIMIT_MS).catch(() => []);
    const bad = addresses.find((address) => !isPublicAddress(address));
    // Which address is not said: the answer would map the inside of a network for whoever asks.
    return bad === undefined ? undefined : new DestinationRefusedError(`${url.hostname} resolves to an address that is not public`);
  }

  /**
   * For a request about to be made: throws for a refused literal address or localhost name, and
   * returns the `lookup` the socket must use for a host name (undefined: no check).
   */
  connectOptions(url: URL): { lookup?: LookupFunction } {
    if (this.policy.allowPrivate) return {};
    const literal = this.literalRefusal(url);
    if (literal instanceof DestinationRefusedError) throw literal;
    return literal === 'name' ? { lookup: this.lookup } : {};
  }

  /** A refusal, undefined for a public literal address, or 'name' when the host must be resolved. */
  private literalRefusal(url: URL): DestinationRefusedError | undefined | 'name' {
    const host = url.hostname;
    if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return isPublicAddress(host) ? undefined : new DestinationRefusedError(`${host} is not a public address`);
    if (isLocalhostName(host)) return new DestinationRefusedError(`${host} is this machine`);
    return 'name';
  }

  /** Resolves once, refuses if any address is not public, and connects to exactly those addresses. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const family = (address: string) => (isIP(address) === 6 ? 6 : 4);
    this.policy.resolve(hostname).then(
      (addresses) => {
        const bad = addresses.find((address) => !isPublicAddress(address));
        if (bad !== undefined) return callback(new DestinationRefusedError(`${hostname} resolved to ${bad}, which is not a public address`), '', 4);
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => family(a) === options.family) : addresses;
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all)
          return callback(
            null,
            wanted.map((address) => ({ address, family: family(address) })),
          );
        callback(null, wanted[0], family(wanted[0]));
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}
