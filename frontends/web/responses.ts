// The responses pages answer with: an HTML page (with the security headers), a 303 redirect, and
// the error pages (a PageError thrown by a handler, a failure the log explains, a refused form).
import type { Logger } from 'pino';
import { FORM_REFUSAL_HEADERS } from './form.js';
import { renderToString, type Child } from './jsx.js';
import { ErrorPage, type Viewer } from './pages/layout.js';
import { CSP, securityHeaders } from './security.js';

/** Thrown by a page handler: the visitor gets an error page with this status and message. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function html(vnode: Child, status = 200, headers: Record<string, string> = {}, csp = CSP): Response {
  return new Response(`<!doctype html>${renderToString(vnode)}`, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...securityHeaders(csp), ...headers },
  });
}

export function redirect(location: string, headers: Record<string, string> | Array<[string, string]> = {}): Response {
  const h = new Headers(headers as Record<string, string>);
  h.set('location', location);
  h.set('cache-control', 'no-store');
  return new Response(null, { status: 303, headers: h });
}

/** The page for an error a handler threw: its own status for a PageError, else a 500 the log explains. */
export function failurePage(logger: Logger, error: unknown, viewer?: Viewer): Response {
  if (error instanceof PageError) return html(ErrorPage({ status: error.status, message: error.message, viewer }), error.status);
  logger.error({ err: error }, 'a web page failed');
  return html(ErrorPage({ status: 500, message: 'The page could not be built; the service log says why.', viewer }), 500);
}

/** A form body refused before it was read (too large, too slow, not a form): an HTML page with the status. */
export function formRefusedPage(refused: { status: number; message: string }, viewer?: Viewer): Response {
  return html(ErrorPage({ status: refused.status, message: `The form was refused: ${refused.message}.`, viewer }), refused.status, {
    ...FORM_REFUSAL_HEADERS,
  });
}
