// The web app's defences: the session cookie, CSRF tokens (per session; before sign-in a
// double-submit cookie), the same-origin check on every POST, sign-in rate limits per account and
// per address, and the headers every page carries (a strict Content-Security-Policy).
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'fl_session';
export const SIGNIN_CSRF_COOKIE = 'fl_signin_csrf';

/** No inline script anywhere, and the browser fetches only this server. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The replay page: rrweb rebuilds the recorded page (its <style> elements) inside a sandboxed
 * iframe, which inherits the page's policy; inline styles are allowed there, scripts still are not.
 */
export const REPLAY_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace(
  "default-src 'none'",
  "default-src 'none'; frame-src 'self'",
);

export function securityHeaders(csp = CSP): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (name && !(name in out)) out[name] = part.slice(at + 1).trim();
  }
  return out;
}

export function cookie(name: string, value: string, options: { secure: boolean; expires?: Date; maxAge?: number }): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  if (options.expires) parts.push(`Expires=${options.expires.toUTCString()}`);
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  return parts.join('; ');
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function sameToken(a: string | undefined | null, b: string | undefined | null): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A state-changing request must come from one of this server's own pages: its Origin (or, when a
 * browser sends none, Sec-Fetch-Site) says so. Requests with neither are left to the CSRF token.
 */
export function sameOrigin(headers: Headers, ownOrigins: string[]): boolean {
  const origin = headers.get('origin');
  if (origin && origin !== 'null') return ownOrigins.includes(origin);
  if (origin === 'null') return false;
  const site = headers.get('sec-fetch-site');
  return site === null || site === 'same-origin' || site === 'none';
}

/** Failed sign-ins per account and per address: past the limit within the window, sign-in waits. */
export class SignInLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly perAccount = 5,
    private readonly perAddress = 20,
    private readonly windowMs = 15 * 60 * 1000,
  ) {}

  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  /** Seconds until another attempt is allowed, 0 when it is now. */
  retryAfter(account: string, address: string, now = Date.now()): number {
    const waits = [
      [this.recent(`a:${account}`, now), this.perAccount],
      [this.recent(`ip:${address}`, now), this.perAddress],
    ] as const;
    let wait = 0;
    for (const [times, limit] of waits) if (times.length >= limit) wait = Math.max(wait, Math.ceil((times[times.length - limit] + this.windowMs - now) / 1000));
    return wait;
  }

  fail(account: string, address: string, now = Date.now()): void {
    if (this.failures.size > 100_000) this.failures.clear(); // bounded memory under a spray of addresses
    for (const key of [`a:${account}`, `ip:${address}`]) this.failures.set(key, [...this.recent(key, now), now]);
  }

  succeed(account: string): void {
    this.failures.delete(`a:${account}`);
  }
}
