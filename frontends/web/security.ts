// The web app's defences: the session cookie, CSRF tokens (per session; before sign-in a
// double-submit cookie), the same-origin check on every POST, and the headers every page carries
// (a strict Content-Security-Policy). Sign-in limits are in signin-policy.ts.
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
