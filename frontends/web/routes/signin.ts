// Signing in and out: GET and POST /signin (email and password, under signin-policy.ts's limits,
// the form protected by a double-submit CSRF cookie), POST /signout, POST /dataset (live or
// sandbox data for the session), and / (to the issues when signed in, else to sign-in).
import type { Dataset } from '../../../src/engine/item.js';
import type { HttpHost } from '../../../src/http/host.js';
import { hashPassword, needsRehash, verifyPassword } from '../../../extensions/catalog/users.js';
import { clearSigninToken, newToken, signinFormValid, signinToken } from '../csrf.js';
import { readForm } from '../form.js';
import type { PageKit } from '../kit.js';
import { SignInPage } from '../pages/layout.js';
import { formRefusedPage } from '../responses.js';
import { cookie, SESSION_COOKIE } from '../security.js';
import { clientAddress, safeNext, SignInLimiter } from '../signin-policy.js';

export function registerSignInPages(http: HttpHost, kit: PageKit): void {
  const { users, secure } = kit;
  const limiter = new SignInLimiter();
  // Unknown accounts are checked against this, so they take as long to refuse as known ones.
  const dummyHash = hashPassword(newToken());
  dummyHash.catch(() => undefined);

  http.page('GET', '/', async (event) => ((await kit.signedIn(event).catch(() => undefined)) ? kit.redirect('/issues') : kit.redirect('/signin')));

  http.page('GET', '/signin', async (event) => {
    const next = safeNext(event.url.searchParams.get('next'));
    if (await kit.signedIn(event).catch(() => undefined)) return kit.redirect(next);
    const { csrf, setCookie } = signinToken(secure);
    return kit.html(SignInPage({ csrf, next }), 200, { 'set-cookie': setCookie });
  });

  http.page('POST', '/signin', async (event) => {
    const read = await readForm(event, kit.web.max_form_bytes);
    if ('refused' in read) return formRefusedPage(read.refused);
    const form = read.fields;
    const next = safeNext(String(form.get('next') ?? ''));
    const email = String(form.get('email') ?? '')
      .trim()
      .toLowerCase()
      .slice(0, 320);
    const again = (status: number, error: string, headers: Record<string, string> = {}) => {
      const { csrf, setCookie } = signinToken(secure);
      return kit.html(SignInPage({ csrf, next, error, email }), status, { ...headers, 'set-cookie': setCookie });
    };
    if (!signinFormValid(event, kit.appUrl, form)) return again(403, 'The sign-in form was stale or not from this site. Try again.');
    const address = clientAddress(event, kit.web.trust_proxy);
    // Counted before anything is awaited: parallel guesses cannot all pass the check first.
    const startedAt = Date.now();
    const wait = limiter.begin(email, address, startedAt);
    if (wait > 0) return again(429, `Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} minutes.`, { 'retry-after': String(wait) });
    const password = String(form.get('password') ?? '');
    const user = email ? await users.byEmail(email) : undefined;
    const ok = await verifyPassword(password, user?.password_hash ?? (await dummyHash));
    if (!user || !ok) return again(401, 'The email or the password is wrong.');
    limiter.succeeded(email, address, startedAt);
    if (needsRehash(user.password_hash)) await users.rehash(user.id, await hashPassword(password));
    const { token, expires } = await users.startSession(user.id);
    return kit.redirect(next, [
      ['set-cookie', cookie(SESSION_COOKIE, token, { secure, expires })],
      ['set-cookie', clearSigninToken(secure)],
    ]);
  });

  http.page(
    'POST',
    '/signout',
    kit.action(async (_event, s) => {
      await users.endSession(s.token);
      return kit.redirect('/signin', { 'set-cookie': cookie(SESSION_COOKIE, '', { secure, maxAge: 0 }) });
    }),
  );

  http.page(
    'POST',
    '/dataset',
    kit.action(async (_event, s, form) => {
      const dataset: Dataset = form.get('dataset') === 'test' ? 'test' : 'live';
      await users.setDataset(s.token, dataset);
      const next = safeNext(String(form.get('next') ?? ''));
      return kit.redirect(next.startsWith('/issues/') ? '/issues' : next); // an issue id belongs to one dataset
    }),
  );
}
