// Projects (DSN, keys, setup snippets). Members read them; only admins get the forms that change
// them. Alert rules are in alerts.tsx, source maps in sourcemaps.tsx, API keys in keys.tsx.
import { h } from '../jsx.js';
import type { ApiKey, Project } from '../../../extensions/catalog/catalog.js';
import { Csrf, Page, TableHead, type Viewer } from './layout.js';

export interface ProjectsView {
  viewer: Viewer;
  appUrl: string;
  /** `dsn`: the project's first active DSN key's, or null when it has none; `keys`: API and DSN keys (with their DSN). */
  projects: Array<{ project: Project; dsn: string | null; keys: Array<{ key: ApiKey; dsn?: string }> }>;
  /** A key just created: its secret, shown once. */
  created?: { id: string; secret: string };
}

/** An admin's form for a new project: its id (used in /v1 and in keys), name and platform. */
function NewProjectForm({ csrf }: { csrf: string }) {
  return (
    <form method="post" action="/projects" class="inline">
      <Csrf token={csrf} />
      <label for="new-project-id">New project id</label> <input id="new-project-id" name="id" required pattern="[a-z0-9][a-z0-9_\-]{0,63}" />{' '}
      <label for="new-project-name">Name</label> <input id="new-project-name" name="name" required /> <label for="new-project-platform">Platform</label>{' '}
      <input id="new-project-platform" name="platform" placeholder="javascript" /> <button type="submit">Create project</button>
    </form>
  );
}

function Snippet({ title, code }: { title: string; code: string }) {
  return (
    <details class="snippet">
      <summary>{title}</summary>
      <pre>
        <code>{code}</code>
      </pre>
    </details>
  );
}

const onOff = (value: boolean | undefined, fallback: string) => (value === undefined ? fallback : value ? 'on' : 'off');

/** The project's data-scrubbing settings (PATCH /v1/projects/{id}); what it leaves out comes from the configuration. */
function DataScrubbing({ settings }: { settings: Project['data_scrubbing'] }) {
  const s = settings ?? {};
  const fromConfig = 'as configured';
  const list = (values: string[] | undefined) => (values?.length ? values.join(', ') : '—');
  return (
    <section aria-label="Data scrubbing" class="scrubbing">
      <h3>Data scrubbing</h3>
      <dl class="pairs">
        <dt>Default rules (passwords, tokens, auth headers, cookies, card numbers, keys)</dt>
        <dd>{onOff(s.defaults, `${fromConfig} (on by default)`)}</dd>
        <dt>Scrub IP addresses</dt>
        <dd>{onOff(s.scrub_ip, fromConfig)}</dd>
        <dt>Scrub e-mail addresses</dt>
        <dd>{onOff(s.scrub_email, fromConfig)}</dd>
        <dt>More sensitive fields</dt>
        <dd>{list(s.sensitive_fields)}</dd>
        <dt>Safe fields</dt>
        <dd>{list(s.safe_fields)}</dd>
        <dt>Replays: mask all text</dt>
        <dd>{onOff(s.mask_all_text, fromConfig)}</dd>
        <dt>Replays: mask all inputs</dt>
        <dd>{onOff(s.mask_all_inputs, fromConfig)}</dd>
      </dl>
      {s.rules?.length ? (
        <table class="rules">
          <TableHead cols={['Rule', 'Selector', 'Pattern', 'Method']} />
          <tbody>
            {s.rules.map((rule, i) => (
              <tr>
                <td>{rule.id ?? `rules[${i}]`}</td>
                <td>
                  <code>{rule.selector}</code>
                </td>
                <td>{rule.pattern === undefined ? 'the whole value' : <code>{rule.pattern}</code>}</td>
                <td>{rule.method === 'replace' ? `replace with ${rule.replacement ?? '[Filtered]'}` : rule.method}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No custom rules.</p>
      )}
      <p class="hint">
        Changed with <code>PATCH /v1/projects/{'{id}'}</code> and <code>{'{"data_scrubbing": {...}}'}</code>: see docs/data-protection.md.
      </p>
    </section>
  );
}

export function ProjectsPage(v: ProjectsView) {
  const admin = v.viewer.user.role === 'admin';
  return (
    <Page viewer={v.viewer} title="Projects" section="/projects">
      <h1>Projects</h1>
      {v.created && (
        <p class="notice" role="status">
          Created key <code>{v.created.id}</code>. Its secret is shown once: <code class="secret">{v.created.secret}</code>
        </p>
      )}
      {admin && <NewProjectForm csrf={v.viewer.csrf} />}
      {v.projects.map(({ project, dsn, keys }) => (
        <section aria-labelledby={`p-${project.id}`} class="project">
          <h2 id={`p-${project.id}`}>
            {project.name} <code>{project.id}</code>
          </h2>
          <dl class="pairs">
            <dt>Platform</dt>
            <dd>{project.platform ?? '—'}</dd>
            <dt>DSN (Sentry SDKs)</dt>
            <dd>{dsn === null ? 'none yet: create a DSN key below' : <code>{dsn}</code>}</dd>
          </dl>
          <DataScrubbing settings={project.data_scrubbing} />
          <h3>Keys</h3>
          <table class="keys">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Kind</th>
                <th scope="col">Data</th>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Revoked</th>
                {admin && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {keys.map(({ key, dsn: keyDsn }) => (
                <tr>
                  <td>{keyDsn ? <code>{keyDsn}</code> : <code>{key.display_prefix}…</code>}</td>
                  <td>{key.kind === 'dsn' ? 'DSN' : 'API'}</td>
                  <td>{key.dataset === 'live' ? 'live' : 'sandbox'}</td>
                  <td>{key.name}</td>
                  <td>{key.created_at}</td>
                  <td>{key.revoked_at ?? '—'}</td>
                  {admin && (
                    <td>
                      {!key.revoked_at && (
                        <form method="post" action={`/keys/${encodeURIComponent(key.id)}/revoke`}>
                          <Csrf token={v.viewer.csrf} />
                          <input type="hidden" name="next" value="/projects" />
                          <button type="submit">Revoke</button>
                        </form>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {admin && (
            <form method="post" action="/projects/keys" class="inline">
              <Csrf token={v.viewer.csrf} />
              <input type="hidden" name="project" value={project.id} />
              <label for={`name-${project.id}`}>New key name</label> <input id={`name-${project.id}`} name="name" />{' '}
              <label for={`ds-${project.id}`}>Data</label>{' '}
              <select id={`ds-${project.id}`} name="dataset">
                <option value="live">live</option>
                <option value="test">sandbox</option>
              </select>{' '}
              <label for={`kind-${project.id}`}>Kind</label>{' '}
              <select id={`kind-${project.id}`} name="kind">
                <option value="api">API key (/v1, OTLP)</option>
                <option value="dsn">DSN key (Sentry SDKs)</option>
              </select>{' '}
              <button type="submit">Create key</button>
            </form>
          )}
          <h3>Send data</h3>
          <Snippet
            title="The /v1 API (curl)"
            code={`curl -X POST ${v.appUrl}/v1/events?project_id=${project.id} \\\n  -H "Authorization: Bearer $FAULTLINE_KEY" -H "Content-Type: application/json" \\\n  -d '{"timestamp":"2026-01-01T00:00:00Z","environment":"production","release":"web@1.0.0","exception":{"type":"Error","value":"boom"}}'`}
          />
          <Snippet
            title="OpenTelemetry (OTLP/HTTP)"
            code={`OTEL_EXPORTER_OTLP_ENDPOINT=http://<faultline-host>:4318\nOTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer $FAULTLINE_KEY,x-faultline-project=${project.id}"\nOTEL_SERVICE_NAME=my-service`}
          />
          <Snippet
            title="Sentry SDK (JavaScript)"
            code={`import * as Sentry from '@sentry/browser';\nSentry.init({ dsn: '${dsn ?? '<dsn>'}', release: 'web@1.0.0' });`}
          />
          <Snippet title="Sentry SDK (Python)" code={`import sentry_sdk\nsentry_sdk.init(dsn="${dsn ?? '<dsn>'}", release="api@1.0.0")`} />
        </section>
      ))}
    </Page>
  );
}
