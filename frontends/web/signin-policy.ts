// What sign-in allows: how many attempts per account, per client address and per pair of them,
// which client address a request comes from (the socket's, or behind a trusted proxy the last
// X-Forwarded-For hop), and where the browser may be sent afterwards.
import { getRequestIP, type H3Event } from 'h3';

export interface SignInLimits {
  /** Attempts one address may make on one account per window. */
  perAccountAddress: number;
  /** Attempts on one account per window, from all addresses together. */
  perAccount: number;
  /** Attempts from one address per window, on all accounts together. */
  perAddress: number;
  windowMs: number;
  /** Accounts, addresses and pairs counted at once: a spray of new names cannot grow memory past it. */
  maxTracked: number;
}

export const SIGNIN_LIMITS: SignInLimits = { perAccountAddress: 5, perAccount: 20, perAddress: 20, windowMs: 15 * 60 * 1000, maxTracked: 100_000 };

/**
 * Sign-in attempts, counted when they start: `begin` is synchronous, so parallel guesses cannot
 * all pass the check before the first of them is counted. One address alone can use up only its
 * own share of an account's attempts, so it cannot lock the account's owner out; it takes several
 * addresses to reach the account's limit.
 */
export class SignInLimiter {
  private readonly attempts = new Map<string, number[]>();

  constructor(private readonly limits: SignInLimits = SIGNIN_LIMITS) {}

  private recent(key: string, now: number): number[] {
    const kept = (this.attempts.get(key) ?? []).filter((t) => now - t < this.limits.windowMs);
    // Re-inserted last: the map's order runs from the least to the most recently tried.
    this.attempts.delete(key);
    if (kept.length) this.attempts.set(key, kept);
    return kept;
  }

  private keys(account: string, address: string): Array<[string, number]> {
    return [
      [`p:${address}\n${account}`, this.limits.perAccountAddress],
      [`a:${account}`, this.limits.perAccount],
      [`ip:${address}`, this.limits.perAddress],
    ];
  }

  /**
   * Counts an attempt now and answers 0, or answers the seconds until one is allowed (and counts
   * nothing). A counted attempt stays counted unless `succeeded` is called for it.
   */
  begin(account: string, address: string, now = Date.now()): number {
    const keys = this.keys(account, address);
    let wait = 0;
    for (const [key, limit] of keys) {
      const times = this.recent(key, now);
      if (times.length >= limit) wait = Math.max(wait, Math.ceil((times[times.length - limit] + this.limits.windowMs - now) / 1000));
    }
    if (wait > 0) return wait;
    this.makeRoom(now);
    for (const [key] of keys) this.attempts.set(key, [...(this.attempts.get(key) ?? []), now]);
    return 0;
  }

  /** When full: forget what is out of its window, then what was tried least recently, down to 90 %. */
  private makeRoom(now: number): void {
    const { maxTracked } = this.limits;
    if (this.attempts.size < maxTracked) return;
    for (const key of [...this.attempts.keys()]) this.recent(key, now);
    let excess = this.attempts.size - Math.floor(maxTracked * 0.9);
    for (const key of this.attempts.keys()) {
      if (excess-- <= 0) break;
      this.attempts.delete(key);
    }
  }

  /** The right password: the account's attempts are forgotten, and this one is not held against the address. */
  succeeded(account: string, address: string, startedAt: number): void {
    const [pair, accountKey, addressKey] = this.keys(account, address).map(([key]) => key);
    this.attempts.delete(pair);
    this.attempts.delete(accountKey);
    const times = this.attempts.get(addressKey);
    const at = times?.indexOf(startedAt) ?? -1;
    if (times && at >= 0) times.splice(at, 1);
  }
}

const ADDRESS = /^[0-9A-Fa-f.:]{2,45}$/;

/**
 * The client's address: the socket's, or with `trustProxy` (the service runs behind one reverse
 * proxy that appends the address it saw) the last X-Forwarded-For entry. Earlier entries are
 * whatever the client wrote, so they are never used.
 */
export function clientAddress(event: H3Event, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = event.req.headers.get('x-forwarded-for');
    const last = forwarded?.slice(-64).split(',').at(-1)?.trim();
    if (last && ADDRESS.test(last)) return last.toLowerCase();
  }
  return getRequestIP(event) ?? 'unknown';
}

/** Printable ASCII without space or backslash, starting with one `/`. */
const LOCAL_PATH = /^\/(?![/\\])[\x21-\x5b\x5d-\x7e]*$/;

/**
 * Where to go after sign-in: only a path of this server. Anything else (another origin, `//host`,
 * a backslash or a control character a browser would strip or turn into `/`, non-ASCII text
 * that cannot travel in a Location header) goes to `/`.
 */
export function safeNext(next: string | null | undefined): string {
  return next && next.length <= 2048 && LOCAL_PATH.test(next) ? next : '/';
}
