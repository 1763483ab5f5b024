// The headers every page carries (a strict Content-Security-Policy) and the cookies the web app
// sets (the session's). CSRF is csrf.ts's; sign-in limits are signin-policy.ts's.
export const SESSION_COOKIE = 'fl_session';

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
