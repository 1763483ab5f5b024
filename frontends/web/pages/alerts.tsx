// Alert rules: each rule's settings, state, recent firings and their deliveries; admins mute,
// delete and create rules with a form of labelled fields, one group per rule type and per action
// (the type's group is the one read; CSS shows only it where the browser supports :has()).
import { Fragment, h } from '../jsx.js';
import type { FieldError } from '../../../src/engine/item.js';
import { ALERT_TYPES } from '../../../src/records/alert-rule.js';
import { LEVELS } from '../../../src/records/event.js';
import type { AlertRule } from '../../../extensions/alerts/alert-rules.js';
import type { FiringRecord } from '../../../extensions/alerts/alert-outbox.js';
import { Csrf, Page, type Viewer, TableHead } from './layout.js';
import { When } from './parts.js';

export interface AlertsPageProps {
  viewer: Viewer;
  rules: AlertRule[];
  firings: Map<string, FiringRecord[]>;
  /** The projects a new rule may watch. */
  projects: string[];
  /** A refused form: what was sent, and every bad field. */
  problems?: { values: Record<string, string>; errors: FieldError[] };
}

const TYPE_LABELS: Record<(typeof ALERT_TYPES)[number], string> = {
  new_issue: 'A new issue is opened',
  regression: 'A resolved issue comes back (regression)',
  error_spike: 'Error events spike',
  latency: 'A service gets slow (span latency)',
};

/** The form's fields by name: `spike.*` and `latency.*` are the conditions of those types. */
export const ALERT_FORM_FIELDS = [
  'project_id',
  'name',
  'type',
  'environment',
  'frequency',
  'spike.threshold',
  'spike.percent_increase',
  'spike.window',
  'spike.comparison_window',
  'spike.level',
  'spike.issue_id',
  'latency.service',
  'latency.operation',
  'latency.percentile',
  'latency.threshold_ms',
  'latency.window',
  'latency.min_samples',
  'webhook.url',
  'webhook.secret',
  'slack.url',
  'log',
] as const;

function ms(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A rule's conditions in words. */
function conditionsText(rule: AlertRule): string {
  const c = rule.conditions as Record<string, unknown>;
  switch (rule.type) {
    case 'new_issue':
    case 'regression':
      return '—';
    case 'error_spike':
      return [
        c.threshold !== undefined
          ? `more than ${String(c.threshold)} events in ${String(c.window)}`
          : `${String(c.percent_increase)} % more events in ${String(c.window)} than in the ${String(c.comparison_window)} before`,
        c.level !== undefined && `level ${String(c.level)}`,
        c.issue_id !== undefined && `issue ${String(c.issue_id)}`,
      ]
        .filter(Boolean)
        .join(', ');
    case 'latency':
      return `p${String(c.percentile ?? 95)} of ${String(c.service)}${c.operation !== undefined ? ` ${String(c.operation)}` : ''} over ${String(c.threshold_ms)} ms in ${String(c.window)}`;
  }
}

function Field({
  name,
  label,
  value,
  type = 'text',
  hint,
  required,
  placeholder,
}: {
  name: string;
  label: string;
  value: (name: string) => string;
  type?: string;
  hint?: string;
  required?: boolean;
  placeholder?: string;
}) {
  const id = `rule-${name.replace('.', '-')}`;
  return (
    <p>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        value={value(name)}
        required={required}
        placeholder={placeholder}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint && <small id={`${id}-hint`}>{hint}</small>}
    </p>
  );
}

function RuleForm({ viewer, projects, problems }: Pick<AlertsPageProps, 'viewer' | 'projects' | 'problems'>) {
  const value = (name: string) => problems?.values[name] ?? '';
  const type = value('type') || 'new_issue';
  return (
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
      <form method="post" action="/alerts" class="stacked rule-form">
        <Csrf token={viewer.csrf} />
        <p>
          <label for="rule-project">Project</label>
          <select id="rule-project" name="project_id">
            {projects.map((id) => (
              <option value={id} selected={value('project_id') === id}>
                {id}
              </option>
            ))}
          </select>
        </p>
        <Field name="name" label="Name" value={value} required />
        <p>
          <label for="rule-type">Fires when</label>
          <select id="rule-type" name="type">
            {ALERT_TYPES.map((t) => (
              <option value={t} selected={type === t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </p>
        <fieldset class="for-error_spike">
          <legend>Error spike: how many events, in which window</legend>
          <Field name="spike.threshold" label="More than this many events" type="number" value={value} hint="Or leave empty and give a percent increase" />
          <Field name="spike.percent_increase" label="Or this many percent more than before" type="number" value={value} />
          <Field name="spike.window" label="Window" value={value} placeholder="5m" hint="A duration: 90s, 5m, 1h, 1d" />
          <Field name="spike.comparison_window" label="Compared with the window before (percent only)" value={value} placeholder="1h" />
          <p>
            <label for="rule-spike-level">Only events of level</label>
            <select id="rule-spike-level" name="spike.level">
              <option value="">any level</option>
              {LEVELS.map((l) => (
                <option value={l} selected={value('spike.level') === l}>
                  {l}
                </option>
              ))}
            </select>
          </p>
          <Field name="spike.issue_id" label="Only events of issue (id)" value={value} />
        </fieldset>
        <fieldset class="for-latency">
          <legend>Latency: which spans, how slow</legend>
          <Field name="latency.service" label="Service" value={value} placeholder="checkout-api" />
          <Field name="latency.operation" label="Operation (span name; empty: all)" value={value} />
          <Field name="latency.percentile" label="Percentile" type="number" value={value} placeholder="95" />
          <Field name="latency.threshold_ms" label="Slower than (ms)" type="number" value={value} />
          <Field name="latency.window" label="Window" value={value} placeholder="10m" />
          <Field name="latency.min_samples" label="At least this many spans" type="number" value={value} />
        </fieldset>
        <Field name="environment" label="Environment (empty: all; not for latency)" value={value} />
        <Field name="frequency" label="At most one notification per" value={value} placeholder="30m" />
        <fieldset>
          <legend>Notify</legend>
          <Field name="webhook.url" label="Webhook URL" type="url" value={value} />
          <Field name="webhook.secret" label="Webhook signing secret (optional)" value={value} />
          <Field name="slack.url" label="Slack incoming-webhook URL" type="url" value={value} />
          <p>
            <label>
              <input type="checkbox" name="log" checked={problems ? value('log') === 'on' : true} /> Log line in the service log
            </label>
          </p>
        </fieldset>
        <p>
          <button type="submit">Create rule</button>
        </p>
      </form>
    </section>
  );
}

export function AlertsPage({ viewer, rules, firings, projects, problems }: AlertsPageProps) {
  const admin = viewer.user.role === 'admin';
  return (
    <Page viewer={viewer} title="Alerts" section="/alerts">
      <h1>Alert rules</h1>
      {rules.length === 0 ? (
        <p class="empty">
          No alert rules in this dataset.{admin ? ' Create one below, or' : ' Create one'} with <code>POST /v1/alerts</code> (see the API reference).
        </p>
      ) : (
        rules.map((rule) => (
          <section class="rule" aria-labelledby={`r-${rule.id}`} data-rule={rule.id}>
            <h2 id={`r-${rule.id}`}>{rule.name}</h2>
            <dl class="pairs">
              <dt>Project</dt>
              <dd>{rule.project_id}</dd>
              <dt>Fires when</dt>
              <dd>{TYPE_LABELS[rule.type]}</dd>
              <dt>Conditions</dt>
              <dd>{conditionsText(rule)}</dd>
              <dt>Environment</dt>
              <dd>{rule.environment ?? 'all'}</dd>
              <dt>Enabled</dt>
              <dd>{rule.enabled ? 'yes' : 'muted'}</dd>
              <dt>State</dt>
              <dd>{rule.state}</dd>
              <dt>Last fired</dt>
              <dd>
                <When at={ms(rule.last_fired_at)} />
              </dd>
              <dt>Notifies</dt>
              <dd>{rule.actions.map((a) => (a.type === 'log' ? 'log' : a.type === 'email' ? `email ${a.to.join(', ')}` : `${a.type} ${a.url}`)).join('; ')}</dd>
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
              <table class="firings">
                <TableHead cols={['Fired', 'State', 'Issue', 'Deliveries']} />
                <tbody>
                  {(firings.get(rule.id) ?? []).map((f) => (
                    <tr>
                      <td>
                        <When at={ms(f.fired_at)} />
                      </td>
                      <td>{f.state}</td>
                      <td>{f.issue_id && <a href={`/issues/${encodeURIComponent(f.issue_id)}`}>{f.issue_id}</a>}</td>
                      <td>
                        <ul class="deliveries">
                          {/* Attempts and errors are for those who manage the rule (admins), like the API's rule owners. */}
                          {f.deliveries.map((d) => (
                            <li>
                              {d.type}: <strong class={`delivery-${d.status}`}>{d.status}</strong>
                              {admin && ` after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`}
                              {admin && d.last_error && (
                                <>
                                  {' '}
                                  (<span class="muted">{d.last_error}</span>)
                                </>
                              )}
                            </li>
                          ))}
                        </ul>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
      {admin && <RuleForm viewer={viewer} projects={projects} problems={problems} />}
    </Page>
  );
}
