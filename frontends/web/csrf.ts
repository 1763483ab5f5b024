// Cross-site request forgery: every state-changing POST must come from this server's own pages
// (its Origin, or Sec-Fetch-Site) and carry a token the attacker cannot read: the session's token
// once signed in, before sign-in a double-submit cookie (the sign-in and password-link forms).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { H3Event } from 'h3';
import { cookie, parseCookies } from './security.js';

export const SIGNIN_CSRF_COOKIE = 'fl_signin_csrf';

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

/** The origins this server's pages are served from: the public URL's, and the one the request reached. */
export function ownOrigins(event: H3Event, appUrl: string): string[] {
  const origins = [new URL(appUrl).origin];
  const host = event.req.headers.get('host');
  if (host) origins.push(`${event.url.protocol}//${host}`);
  return origins;
}

/** Whether a signed-in form's POST is from this origin (checked before its body is read). */
export function fromOwnPage(event: H3Event, appUrl: string): boolean {
  return sameOrigin(event.req.headers, ownOrigins(event, appUrl));
}

/** Whether the form carries the session's CSRF token. */
export function carriesToken(form: FormData, expected: string): boolean {
  return sameToken(String(form.get('_csrf') ?? ''), expected);
}

/** A form shown before sign-in: its token, and the cookie that carries the same token (an hour). */
export function signinToken(secure: boolean): { csrf: string; setCookie: string } {
  const csrf = newToken();
  return { csrf, setCookie: cookie(SIGNIN_CSRF_COOKIE, csrf, { secure, maxAge: 3600 }) };
}

/** The cookie that ends the pre-sign-in token once a session starts. */
export function clearSigninToken(secure: boolean): string {
  return cookie(SIGNIN_CSRF_COOKIE, '', { secure, maxAge: 0 });
}

/** Whether a pre-sign-in form is from this origin and its token matches its cookie. */
export function signinFormValid(event: H3Event, appUrl: string, form: FormData): boolean {
  const cookieToken = parseCookies(event.req.headers.get('cookie'))[SIGNIN_CSRF_COOKIE];
  return fromOwnPage(event, appUrl) && sameToken(String(form.get('_csrf') ?? ''), cookieToken);
}
