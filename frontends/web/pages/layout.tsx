// The frame of every signed-in page: skip link, navigation, the live/sandbox switch, who is signed
// in and the sign-out form; and the sign-in page. Every value is escaped by Preact's renderer.
import { Fragment, h, type ComponentChildren } from '../jsx.js';
import type { Dataset } from '../../../src/engine/item.js';
import type { User } from '../../../extensions/catalog/users.js';

export interface Viewer {
  user: User;
  dataset: Dataset;
  csrf: string;
  /** The path and query of this page (where the dataset switch comes back to). */
  here: string;
}

/** A table's header row of column headings. */
export function TableHead({ cols }: { cols: string[] }) {
  return (
    <thead>
      <tr>
        {cols.map((col) => (
          <th scope="col">{col}</th>
        ))}
      </tr>
    </thead>
  );
}

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export function Document({ title, children, head }: { title: string; children: ComponentChildren; head?: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Faultline`}</title>
        <link rel="stylesheet" href="/assets/app.css" />
        <link rel="icon" href="/favicon.ico" />
        {head}
      </head>
      <body>{children}</body>
    </html>
  );
}

const NAV: Array<[string, string]> = [
  ['/issues', 'Issues'],
  ['/traces', 'Traces'],
  ['/replays', 'Replays'],
  ['/releases', 'Releases'],
  ['/projects', 'Projects'],
  ['/alerts', 'Alerts'],
  ['/monitors', 'Monitors'],
  ['/sourcemaps', 'Source maps'],
  ['/keys', 'API keys'],
];
/** Only admins see it (frontends/web/routes/users.ts). */
const USERS_LINK: [string, string] = ['/users', 'Users'];

export function Page({
  viewer,
  title,
  section,
  children,
  head,
}: {
  viewer: Viewer;
  title: string;
  section?: string;
  children: ComponentChildren;
  head?: ComponentChildren;
}) {
  const other: Dataset = viewer.dataset === 'live' ? 'test' : 'live';
  return (
    <Document title={title} head={head}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class={`top ${viewer.dataset === 'test' ? 'sandbox' : ''}`}>
        <a class="brand" href="/issues">
          Faultline
        </a>
        <nav aria-label="Main">
          <ul>
            {(viewer.user.role === 'admin' ? [...NAV, USERS_LINK] : NAV).map(([href, label]) => (
              <li>
                <a href={href} aria-current={section === href ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <form method="post" action="/dataset" class="dataset">
          <Csrf token={viewer.csrf} />
          <input type="hidden" name="next" value={viewer.here} />
          <span id="dataset-label">Data: </span>
          <strong data-dataset={viewer.dataset}>{viewer.dataset === 'live' ? 'Live' : 'Sandbox'}</strong>{' '}
          <button type="submit" name="dataset" value={other} aria-describedby="dataset-label">
            {other === 'live' ? 'Switch to live' : 'Switch to sandbox'}
          </button>
        </form>
        <form method="post" action="/signout" class="signout">
          <Csrf token={viewer.csrf} />
          <span class="who">
            {viewer.user.email} ({viewer.user.role})
          </span>{' '}
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main id="main">{children}</main>
    </Document>
  );
}

export function SignInPage({ csrf, next, error, email }: { csrf: string; next: string; error?: string; email?: string }) {
  return (
    <Document title="Sign in">
      <main id="main" class="signin">
        <h1>Sign in to Faultline</h1>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <form method="post" action="/signin">
          <Csrf token={csrf} />
          <input type="hidden" name="next" value={next} />
          <p>
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ''} />
          </p>
          <p>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required />
          </p>
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
        <p class="hint">
          No account yet? An operator creates one with <code>faultline users create --email you@example.com --role admin</code>.
        </p>
      </main>
    </Document>
  );
}

export function ErrorPage({ status, message, viewer }: { status: number; message: string; viewer?: Viewer }) {
  const body = (
    <>
      <h1>{status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something went wrong'}</h1>
      <p>{message}</p>
      <p>
        <a href="/issues">Back to the issues</a>
      </p>
    </>
  );
  return viewer ? (
    <Page viewer={viewer} title={String(status)}>
      {body}
    </Page>
  ) : (
    <Document title={String(status)}>
      <main id="main">{body}</main>
    </Document>
  );
}
