// The admins' users page and the one-time sign-in links it hands out. Admins list the people of
// their organization, invite one (a link to choose a first password), disable, enable and delete
// them, and reset a password (the old one stops working and a link to choose a new one is made).
// Disabling, deleting and resetting end the user's sessions in the same transaction.
import type { H3Event } from 'h3';
import type { UserChange } from '../../../src/admin/operations.js';
import type { HttpHost } from '../../../src/http/host.js';
import { CatalogError } from '../../../extensions/catalog/catalog.js';
import { generatePassword, hashPassword, LINK_HOURS, ROLES, type LinkPurpose, type Role } from '../../../extensions/catalog/users.js';
import { clearSigninToken, signinFormValid, signinToken } from '../csrf.js';
import { readForm } from '../form.js';
import type { PageKit, Signed } from '../kit.js';
import { ErrorPage } from '../pages/layout.js';
import { SetPasswordPage, UsersPage, type UsersView } from '../pages/users.js';
import { formRefusedPage, html, PageError } from '../responses.js';
import { cookie, SESSION_COOKIE } from '../security.js';

const errorPage = (status: number, message: string) => html(ErrorPage({ status, message }), status);

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;

export function registerUserPages(http: HttpHost, kit: PageKit): void {
  const { users } = kit;
  const linkUrl = (token: string) => `${kit.appUrl.replace(/\/+$/, '')}/signin/link/${token}`;

  const asPage = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CatalogError) throw new PageError({ not_found: 404, conflict: 409, invalid: 400 }[error.code], error.message);
      throw error;
    }
  };

  const usersPage = async (s: Signed, extra: Pick<UsersView, 'link' | 'notice'> = {}, status = 200) => {
    const all = (await users.list()).filter((u) => u.org_id === s.session.user.org_id);
    return kit.html(UsersPage({ viewer: s.viewer, users: all, ...extra }), status);
  };

  /** The user named in the path, if they belong to the admin's organization. */
  const target = async (event: H3Event, s: Signed) => {
    const id = decodeURIComponent(event.context.params?.id ?? '');
    const user = await users.find(id);
    if (!user || user.id !== id || user.org_id !== s.session.user.org_id) throw new PageError(404, `No user ${id}.`);
    return user;
  };

  const withLink = async (userId: string, email: string, purpose: LinkPurpose) => {
    const { token, expires } = await users.createLink(userId, purpose);
    return { email, purpose, url: linkUrl(token), expires: expires.toISOString() };
  };

  http.page(
    'GET',
    '/users',
    kit.view(async (_event, s) => {
      if (s.session.user.role !== 'admin') throw new PageError(403, 'Only admins manage users.');
      return usersPage(s);
    }),
  );

  http.page(
    'POST',
    '/users',
    kit.action(async (_event, s, form) => {
      const email = String(form.get('email') ?? '').slice(0, 320);
      const role = String(form.get('role') ?? 'member');
      if (!(ROLES as readonly string[]).includes(role)) throw new PageError(400, 'The role is admin or member.');
      // A password nobody knows until the invitation's link sets one.
      const passwordHash = await hashPassword(generatePassword());
      const user = await asPage(() => users.create({ email, role: role as Role, passwordHash, orgId: s.session.user.org_id }));
      return usersPage(s, { link: await withLink(user.id, user.email, 'invite') });
    }, 'admin'),
  );

  const changes: Array<[UserChange, (email: string) => string]> = [
    ['disable', (email) => `Disabled ${email}; their sessions ended.`],
    ['enable', (email) => `Enabled ${email}.`],
    ['delete', (email) => `Deleted ${email}; their sessions ended.`],
  ];
  for (const [change, notice] of changes)
    http.page(
      'POST',
      `/users/:id/${change}`,
      kit.action(async (event, s) => {
        const user = await asPage(async () => users[change]((await target(event, s)).id));
        return usersPage(s, { notice: notice(user.email) });
      }, 'admin'),
    );

  http.page(
    'POST',
    '/users/:id/reset',
    kit.action(async (event, s) => {
      const user = await target(event, s);
      await asPage(async () => users.setPassword(user.id, await hashPassword(generatePassword())));
      return usersPage(s, { link: await withLink(user.id, user.email, 'reset') });
    }, 'admin'),
  );

  const linkPage = (email: string, status = 200, error?: string) => {
    const { csrf, setCookie } = signinToken(kit.secure);
    return kit.html(SetPasswordPage({ csrf, email, error }), status, { 'set-cookie': setCookie });
  };
  const deadLink = () =>
    errorPage(404, `This sign-in link was used, has expired (links last ${LINK_HOURS} hours) or is not valid: ask an admin for a new one.`);

  http.page('GET', '/signin/link/:token', async (event) => {
    const user = await users.linkUser(event.context.params?.token ?? '');
    if (!user) return deadLink();
    return linkPage(user.email);
  });

  http.page('POST', '/signin/link/:token', async (event) => {
    const token = event.context.params?.token ?? '';
    const read = await readForm(event, kit.web.max_form_bytes);
    if ('refused' in read) return formRefusedPage(read.refused);
    const form = read.fields;
    const user = await users.linkUser(token);
    if (!user) return deadLink();
    if (!signinFormValid(event, kit.appUrl, form)) return linkPage(user.email, 403, 'The form was stale or not from this site. Try again.');
    const password = String(form.get('password') ?? '');
    if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)
      return linkPage(user.email, 400, `The password needs ${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`);
    if (password !== String(form.get('confirm') ?? '')) return linkPage(user.email, 400, 'The two passwords differ.');
    const changed = await users.useLink(token, await hashPassword(password));
    if (!changed) return deadLink();
    const { token: session, expires } = await users.startSession(changed.id);
    return kit.redirect('/issues', [
      ['set-cookie', cookie(SESSION_COOKIE, session, { secure: kit.secure, expires })],
      ['set-cookie', clearSigninToken(kit.secure)],
    ]);
  });
}
