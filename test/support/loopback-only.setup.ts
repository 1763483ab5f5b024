// Tests send traffic only to this machine: a host-name lookup for anything but localhost fails
// here (ENOTFOUND) instead of asking the machine's resolver, which is not on loopback; c-ares
// queries fail for every name. Code under
// test that resolves a name through node:dns (webhook deliveries to hooks.example.com in the docs'
// examples, say) sees an unknown host. Tests that need a name to resolve inject their own lookup.
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

const LOCAL = new Set(['localhost', 'localhost.', '127.0.0.1', '::1']);

function refused(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (tests resolve only localhost)`), { code: 'ENOTFOUND', hostname });
}

const realLookup = dns.lookup;
const realPromisesLookup = dns.promises.lookup;

function guardedLookup(hostname: string, ...rest: unknown[]): void {
  const callback = rest.at(-1) as (error: NodeJS.ErrnoException | null, ...values: unknown[]) => void;
  if (!LOCAL.has(hostname) && !/^[\d.]+$|:/.test(hostname)) {
    process.nextTick(() => callback(refused(hostname)));
    return;
  }
  (realLookup as (...args: unknown[]) => void)(hostname, ...rest);
}

// c-ares resolvers (dns.Resolver, dns.promises.Resolver) ask a name server directly: in tests they
// answer ENOTFOUND for every name without sending a query.
for (const Resolver of [dns.Resolver, dns.promises.Resolver] as Array<{ prototype: object }>) {
  for (const method of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveMx', 'resolveNs', 'resolveTxt', 'resolveSrv']) {
    Object.defineProperty(Resolver.prototype, method, {
      configurable: true,
      writable: true,
      value(hostname: string, ...rest: unknown[]) {
        const callback = rest.at(-1);
        if (typeof callback === 'function') return process.nextTick(() => (callback as (e: Error) => void)(refused(hostname)));
        return Promise.reject(refused(hostname));
      },
    });
  }
}

dns.lookup = guardedLookup as typeof dns.lookup;
dns.promises.lookup = ((hostname: string, options?: unknown) =>
  !LOCAL.has(hostname) && !/^[\d.]+$|:/.test(hostname)
    ? Promise.reject(refused(hostname))
    : (realPromisesLookup as (h: string, o?: unknown) => Promise<unknown>)(hostname, options)) as typeof dns.promises.lookup;
syncBuiltinESMExports();
