// Source-map bundles of a project, newest first, grouped by release: each with its files (name,
// type, size in KB/MB, debug id); admins delete a bundle with its button.
import { h } from '../jsx.js';
import type { Bundle } from '../../../extensions/artifacts/artifacts.js';
import { Csrf, Page, type Viewer, TableHead } from './layout.js';
import { formatBytes, NextPage, ProjectPicker, When } from './parts.js';

export interface SourcemapsView {
  viewer: Viewer;
  projects: string[];
  projectId: string;
  bundles: Bundle[];
  query: URLSearchParams;
  nextCursor: string | null;
  notice?: string;
}

export function SourcemapsPage(v: SourcemapsView) {
  const admin = v.viewer.user.role === 'admin';
  const releases = new Map<string, Bundle[]>();
  for (const b of v.bundles) releases.set(b.release, [...(releases.get(b.release) ?? []), b]);
  return (
    <Page viewer={v.viewer} title="Source maps" section="/sourcemaps">
      <h1>Source maps of {v.projectId}</h1>
      <ProjectPicker action="/sourcemaps" projects={v.projects} current={v.projectId} />
      {v.notice && (
        <p class="notice" role="status">
          {v.notice}
        </p>
      )}
      {v.bundles.length === 0 ? (
        <p class="empty">
          No bundles uploaded. Upload with <code>faultline sourcemaps upload</code>, <code>sentry-cli sourcemaps upload</code> or{' '}
          <code>POST /v1/sourcemaps</code>.
        </p>
      ) : (
        [...releases].map(([release, list]) => (
          <section aria-label={`Release ${release}`}>
            <h2>{release}</h2>
            {list.map((b) => (
              <article class="bundle" data-bundle={b.id}>
                <h3>
                  Bundle <code>{b.id}</code>
                  {b.dist && ` (dist ${b.dist})`}: {b.files.length} file{b.files.length === 1 ? '' : 's'},{' '}
                  <span class="size">{formatBytes(b.files.reduce((sum, f) => sum + f.size, 0))}</span>, uploaded <When at={b.created_at} />
                </h3>
                <table class="files">
                  <TableHead cols={['File', 'Type', 'Size', 'Debug id']} />
                  <tbody>
                    {b.files.map((f) => (
                      <tr>
                        <td>
                          <code>{f.name}</code>
                        </td>
                        <td>{f.type}</td>
                        <td class="size">{formatBytes(f.size)}</td>
                        <td>{f.debug_id ? <code>{f.debug_id}</code> : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {admin && (
                  <form method="post" action={`/sourcemaps/${encodeURIComponent(b.id)}/delete`} class="inline">
                    <Csrf token={v.viewer.csrf} />
                    <button type="submit" aria-label={`Delete bundle ${b.id}`}>
                      Delete bundle
                    </button>
                  </form>
                )}
              </article>
            ))}
          </section>
        ))
      )}
      <NextPage path="/sourcemaps" query={v.query} cursor={v.nextCursor} />
    </Page>
  );
}
