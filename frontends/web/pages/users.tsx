// The admins' users page (who can sign in, invitations, disabling, deleting, password resets) and
// the page a one-time sign-in link opens, where its user chooses a password.
import { h } from '../jsx.js';
import type { UserListing } from '../../../extensions/catalog/users.js';
import { Csrf, Document, Page, TableHead, type Viewer } from './layout.js';

export interface UsersView {
  viewer: Viewer;
  users: UserListing[];
  /** A link just made (an invitation or a reset): shown once, for the admin to pass on. */
  link?: { email: string; url: string; purpose: 'invite' | 'reset'; expires: string };
  notice?: string;
}

function UserAction({ csrf, user, act, label }: { csrf: string; user: UserListing; act: string; label: string }) {
  return (
    <form method="post" action={`/users/${encodeURIComponent(user.id)}/${act}`} class="inline">
      <Csrf token={csrf} />
      <button type="submit" aria-label={`${label} ${user.email}`}>
        {label}
      </button>
    </form>
  );
}

export function UsersPage(v: UsersView) {
  const csrf = v.viewer.csrf;
  return (
    <Page viewer={v.viewer} title="Users" section="/users">
      <h1>Users</h1>
      {v.notice && (
        <p class="notice" role="status">
          {v.notice}
        </p>
      )}
      {v.link && (
        <p class="notice" role="status">
          {v.link.purpose === 'invite' ? `Invited ${v.link.email}.` : `Reset the password of ${v.link.email}; their sessions ended.`} Pass this one-time link on
          to them (it sets a password once, until {v.link.expires}); it is shown once: <code class="secret">{v.link.url}</code>
        </p>
      )}
      <form method="post" action="/users" class="inline">
        <Csrf token={csrf} />
        <label for="invite-email">Email</label> <input id="invite-email" name="email" type="email" required /> <label for="invite-role">Role</label>{' '}
        <select id="invite-role" name="role">
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>{' '}
        <button type="submit">Invite</button>
      </form>
      <table class="users">
        <TableHead cols={['Email', 'Role', 'Created', 'Status', 'Actions']} />
        <tbody>
          {v.users.map((user) => (
            <tr>
              <td>{user.email}</td>
              <td>{user.role}</td>
              <td>{user.created_at}</td>
              <td>{user.disabled_at ? `disabled ${user.disabled_at}` : 'enabled'}</td>
              <td>
                {user.disabled_at ? (
                  <UserAction csrf={csrf} user={user} act="enable" label="Enable" />
                ) : (
                  <UserAction csrf={csrf} user={user} act="disable" label="Disable" />
                )}{' '}
                <UserAction csrf={csrf} user={user} act="reset" label="Reset password" /> <UserAction csrf={csrf} user={user} act="delete" label="Delete" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}

export function SetPasswordPage({ csrf, email, error }: { csrf: string; email: string; error?: string }) {
  return (
    <Document title="Choose a password">
      <main id="main" class="signin">
        <h1>Choose a password</h1>
        <p>
          For <strong>{email}</strong>. This link works once.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <form method="post">
          <Csrf token={csrf} />
          <input type="text" name="username" autocomplete="username" value={email} hidden />
          <p>
            <label for="password">New password (at least 8 characters)</label>
            <input id="password" name="password" type="password" autocomplete="new-password" minlength={8} maxlength={1024} required />
          </p>
          <p>
            <label for="confirm">The same again</label>
            <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength={8} maxlength={1024} required />
          </p>
          <p>
            <button type="submit">Set password and sign in</button>
          </p>
        </form>
      </main>
    </Document>
  );
}
