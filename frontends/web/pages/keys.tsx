// API keys of the organization: organization keys (every project) and each project's keys, with
// when they were made and revoked; admins create one (its secret shown once, on this page only)
// and revoke them.
import { h } from '../jsx.js';
import type { ApiKey } from '../../../extensions/catalog/catalog.js';
import { Csrf, Page, type Viewer, TableHead } from './layout.js';
import { When } from './parts.js';

export interface KeysView {
  viewer: Viewer;
  keys: ApiKey[];
  projects: string[];
  /** A key just created: its secret, shown once. */
  created?: { id: string; secret: string };
}

function KeyTable({ keys, viewer, label }: { keys: ApiKey[]; viewer: Viewer; label: string }) {
  const admin = viewer.user.role === 'admin';
  if (keys.length === 0) return <p class="muted">None.</p>;
  return (
    <table class="keys" aria-label={label}>
      <TableHead cols={['Key', 'Name', 'Project', 'Kind', 'Data', 'Created', 'Revoked', ...(admin ? ['Actions'] : [])]} />
      <tbody>
        {keys.map((key) => (
          <tr data-key={key.id} class={key.revoked_at ? 'revoked' : undefined}>
            <td>
              <code>{key.kind === 'dsn' ? key.public_key : `${key.display_prefix}…`}</code>
            </td>
            <td>{key.name ?? '—'}</td>
            <td>{key.project_id ?? 'every project'}</td>
            <td>{key.kind === 'dsn' ? 'DSN' : 'API'}</td>
            <td>{key.dataset === 'live' ? 'live' : 'sandbox'}</td>
            <td>
              <When at={key.created_at} />
            </td>
            <td>{key.revoked_at ? <When at={key.revoked_at} /> : '—'}</td>
            {admin && (
              <td>
                {!key.revoked_at && (
                  <form method="post" action={`/keys/${encodeURIComponent(key.id)}/revoke`}>
                    <Csrf token={viewer.csrf} />
                    <button type="submit" aria-label={`Revoke ${key.name ?? key.id}`}>
                      Revoke
                    </button>
                  </form>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function KeysPage(v: KeysView) {
  const admin = v.viewer.user.role === 'admin';
  const org = v.keys.filter((k) => k.project_id === null);
  const project = v.keys.filter((k) => k.project_id !== null);
  return (
    <Page viewer={v.viewer} title="API keys" section="/keys">
      <h1>API keys</h1>
      {v.created && (
        <p class="notice created-key" role="status">
          Created key <code>{v.created.id}</code>. Copy its secret now, it is not shown again: <code class="secret">{v.created.secret}</code>
        </p>
      )}
      <h2>Organization keys</h2>
      <p class="muted">Reach every project; list routes then need project_id.</p>
      <KeyTable keys={org} viewer={v.viewer} label="Organization keys" />
      <h2>Project keys</h2>
      <KeyTable keys={project} viewer={v.viewer} label="Project keys" />
      {admin && (
        <section aria-labelledby="new-key">
          <h2 id="new-key">New key</h2>
          <form method="post" action="/keys" class="stacked">
            <Csrf token={v.viewer.csrf} />
            <p>
              <label for="key-name">Name</label>
              <input id="key-name" name="name" placeholder="ci-uploads" />
            </p>
            <p>
              <label for="key-scope">Reaches</label>
              <select id="key-scope" name="scope">
                <option value="">every project (organization key)</option>
                {v.projects.map((id) => (
                  <option value={id}>project {id}</option>
                ))}
              </select>
            </p>
            <p>
              <label for="key-dataset">Data</label>
              <select id="key-dataset" name="dataset">
                <option value="live">live</option>
                <option value="test">sandbox</option>
              </select>
            </p>
            <p>
              <button type="submit">Create key</button>
            </p>
          </form>
        </section>
      )}
    </Page>
  );
}
