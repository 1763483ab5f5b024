// Projects (DSN, keys, setup snippets), alert rules (state, recent firings and deliveries) and
// source-map bundles per release. Members read them; only admins get the forms that change them.
import { h } from '../jsx.js';
import type { FieldError } from '../../engine/item.js';
import type { AlertRule } from '../../storage/alert-rules.js';
import type { FiringRecord } from '../../storage/alert-outbox.js';
import type { BundleSummary } from '../../storage/artifacts.js';
import type { ApiKey, Project } from '../../storage/catalog.js';
import { Csrf, Page, type Viewer, TableHead } from './layout.js';

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
                        <form method="post" action={`/projects/keys/${encodeURIComponent(key.id)}/revoke`}>
                          <Csrf token={v.viewer.csrf} />
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

export interface AlertsPageProps {
  viewer: Viewer;
  rules: AlertRule[];
  firings: Map<string, FiringRecord[]>;
  /** The projects a new rule may watch. */
  projects: string[];
  /** A refused form: what was sent, and every bad field. */
  problems?: { values: Record<string, string>; errors: FieldError[] };
}

const CONDITION_EXAMPLES =
  '{} for new_issue and regression; {"threshold": 100, "window": "5m"} for error_spike; {"service": "api", "percentile": 95, "threshold_ms": 800, "window": "10m"} for latency';

export function AlertsPage({ viewer, rules, firings, projects, problems }: AlertsPageProps) {
  const time = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString());
  const admin = viewer.user.role === 'admin';
  const value = (name: string) => problems?.values[name] ?? '';
  return (
    <Page viewer={viewer} title="Alerts" section="/alerts">
      <h1>Alert rules</h1>
      {rules.length === 0 ? (
        <p class="empty">
          No alert rules in this dataset.{admin ? ' Create one below, or' : ' Create one'} with <code>POST /v1/alerts</code> (see the API reference).
        </p>
      ) : (
        rules.map((rule) => (
          <section class="rule" aria-labelledby={`r-${rule.id}`}>
            <h2 id={`r-${rule.id}`}>{rule.name}</h2>
            <dl class="pairs">
              <dt>Project</dt>
              <dd>{rule.project_id}</dd>
              <dt>Type</dt>
              <dd>{rule.type}</dd>
              <dt>Conditions</dt>
              <dd>
                <code>{JSON.stringify(rule.conditions)}</code>
              </dd>
              <dt>Enabled</dt>
              <dd>{rule.enabled ? 'yes' : 'muted'}</dd>
              <dt>State</dt>
              <dd>{rule.state}</dd>
              <dt>Last fired</dt>
              <dd>{time(rule.last_fired_at)}</dd>
              <dt>Actions</dt>
              <dd>{rule.actions.map((a) => a.type).join(', ')}</dd>
            </dl>
            {admin && (
              <div class="actions">
                <form method="post" action={`/alerts/${encodeURIComponent(rule.id)}/enabled`} class="inline">
                  <Csrf token={viewer.csrf} />
                  <input type="hidden" name="enabled" value={rule.enabled ? 'false' : 'true'} />
                  <button type="submit">{rule.enabled ? 'Mute' : 'Unmute'}</button>
                </form>{' '}
                <form method="post" action={`/alerts/${encodeURIComponent(rule.id)}/delete`} class="inline">
                  <Csrf token={viewer.csrf} />
                  <button type="submit">Delete</button>
                </form>
              </div>
            )}
            <h3>Recent firings</h3>
            {(firings.get(rule.id) ?? []).length === 0 ? (
              <p class="muted">None yet.</p>
            ) : (
              <table>
                <TableHead cols={['Fired', 'State', 'Issue', 'Deliveries']} />
                <tbody>
                  {(firings.get(rule.id) ?? []).map((f) => (
                    <tr>
                      <td>{time(f.fired_at)}</td>
                      <td>{f.state}</td>
                      <td>{f.issue_id && <a href={`/issues/${encodeURIComponent(f.issue_id)}`}>{f.issue_id}</a>}</td>
                      <td>{f.deliveries.map((d) => `${d.type}: ${d.status} (${d.attempts})${d.last_error ? ` ${d.last_error}` : ''}`).join('; ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
      {admin && (
        <section aria-labelledby="new-rule">
          <h2 id="new-rule">New rule</h2>
          {problems && (
            <div role="alert" class="errors">
              <p>The rule was not created:</p>
              <ul>
                {problems.errors.map((e) => (
                  <li>
                    <code>{e.path}</code> {e.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <form method="post" action="/alerts" class="stacked">
            <Csrf token={viewer.csrf} />
            <label for="rule-project">Project</label>
            <select id="rule-project" name="project_id">
              {projects.map((id) => (
                <option value={id} selected={value('project_id') === id}>
                  {id}
                </option>
              ))}
            </select>
            <label for="rule-name">Name</label>
            <input id="rule-name" name="name" value={value('name')} required />
            <label for="rule-type">Type</label>
            <select id="rule-type" name="type">
              {['new_issue', 'regression', 'error_spike', 'latency'].map((t) => (
                <option value={t} selected={value('type') === t}>
                  {t}
                </option>
              ))}
            </select>
            <label for="rule-conditions">Conditions (JSON)</label>
            <textarea id="rule-conditions" name="conditions" rows={3} aria-describedby="rule-conditions-help">
              {value('conditions')}
            </textarea>
            <small id="rule-conditions-help">{CONDITION_EXAMPLES}</small>
            <label for="rule-environment">Environment (empty: all)</label>
            <input id="rule-environment" name="environment" value={value('environment')} />
            <label for="rule-frequency">Frequency (empty: 30m)</label>
            <input id="rule-frequency" name="frequency" value={value('frequency')} />
            <label for="rule-webhook">Webhook URL</label>
            <input id="rule-webhook" name="webhook" type="url" value={value('webhook')} />
            <label>
              <input type="checkbox" name="log" checked={problems ? problems.values.log === 'on' : true} /> Log line in the service log
            </label>
            <button type="submit">Create rule</button>
          </form>
        </section>
      )}
    </Page>
  );
}

export function SourcemapsPage({ viewer, projectId, bundles }: { viewer: Viewer; projectId: string; bundles: BundleSummary[] }) {
  const releases = new Map<string, BundleSummary[]>();
  for (const b of bundles) releases.set(b.release, [...(releases.get(b.release) ?? []), b]);
  return (
    <Page viewer={viewer} title="Source maps" section="/sourcemaps">
      <h1>Source maps of {projectId}</h1>
      {bundles.length === 0 ? (
        <p class="empty">
          No bundles uploaded. Upload with <code>faultline sourcemaps upload</code> or <code>POST /v1/sourcemaps</code>.
        </p>
      ) : (
        [...releases].map(([release, list]) => (
          <section aria-label={`Release ${release}`}>
            <h2>{release}</h2>
            <table>
              <TableHead cols={['Bundle', 'Dist', 'Files', 'Bytes', 'Uploaded']} />
              <tbody>
                {list.map((b) => (
                  <tr>
                    <td>
                      <code>{b.id}</code>
                    </td>
                    <td>{b.dist ?? '—'}</td>
                    <td>{b.file_count}</td>
                    <td>{b.size}</td>
                    <td>{b.created_at}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))
      )}
    </Page>
  );
}
