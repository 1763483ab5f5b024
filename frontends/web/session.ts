// Who is signed in: the session cookie holds only a random token; the session itself (user,
// dataset, CSRF token) lives in the catalog. /v1 never looks at it: it keeps its bearer keys.
import type { H3Event } from 'h3';
import type { Users } from '../../extensions/catalog/users.js';
import type { Signed } from './kit.js';
import { redirect } from './responses.js';
import { parseCookies, SESSION_COOKIE } from './security.js';

/** The request's session, or undefined without a valid one. */
export function sessionReader(users: Users): (event: H3Event) => Promise<Signed | undefined> {
  return async (event) => {
    const token = parseCookies(event.req.headers.get('cookie'))[SESSION_COOKIE];
    if (!token) return undefined;
    const session = await users.session(token);
    if (!session) return undefined;
    const here = event.url.pathname + event.url.search;
    return {
      session,
      token,
      viewer: { user: session.user, dataset: session.dataset, csrf: session.csrf, here },
      principal: { keyId: `user:${session.user.id}`, orgId: session.user.org_id, projectId: null, dataset: session.dataset },
    };
  };
}

/** To the sign-in page, coming back here afterwards. */
export function toSignIn(event: H3Event): Response {
  return redirect(`/signin?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
}
