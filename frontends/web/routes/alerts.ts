// GET /alerts and the admin's forms: create a rule from labelled fields (checked as POST
// /v1/alerts checks a body, every bad field listed), mute or unmute it, delete it.
import { RuleLimitError } from '../../../extensions/alerts/alert-limits.js';
import { DestinationsRefusedError } from '../../../extensions/alerts/alerts.js';
import type { HttpHost } from '../../../src/http/host.js';
import { validateRule, type AlertRuleInput } from '../../../src/records/alert-rule.js';
import type { FieldError } from '../../../src/engine/item.js';
import type { PageKit, Signed } from '../kit.js';
import { ALERT_FORM_FIELDS, AlertsPage } from '../pages/alerts.js';

/** A number field: its number, or the text as sent so that validation names it. */
function numberOr(text: string): number | string {
  const n = Number(text);
  return text !== '' && Number.isFinite(n) ? n : text;
}

/** The body POST /v1/alerts would take, from the form: only the chosen type's conditions are read. */
export function ruleBodyFromForm(v: Record<string, string>): Record<string, unknown> {
  const conditions: Record<string, unknown> = {};
  const set = (key: string, field: string, number = false) => {
    if (v[field] !== '') conditions[key] = number ? numberOr(v[field]) : v[field];
  };
  if (v.type === 'error_spike') {
    set('threshold', 'spike.threshold', true);
    set('percent_increase', 'spike.percent_increase', true);
    set('window', 'spike.window');
    set('comparison_window', 'spike.comparison_window');
    set('level', 'spike.level');
    set('issue_id', 'spike.issue_id');
  } else if (v.type === 'latency') {
    set('service', 'latency.service');
    set('operation', 'latency.operation');
    set('percentile', 'latency.percentile', true);
    set('threshold_ms', 'latency.threshold_ms', true);
    set('window', 'latency.window');
    set('min_samples', 'latency.min_samples', true);
  }
  const actions: Array<Record<string, unknown>> = [];
  if (v['webhook.url'] !== '') actions.push({ type: 'webhook', url: v['webhook.url'], ...(v['webhook.secret'] !== '' && { secret: v['webhook.secret'] }) });
  if (v['slack.url'] !== '') actions.push({ type: 'slack', url: v['slack.url'] });
  if (v.log === 'on') actions.push({ type: 'log' });
  const body: Record<string, unknown> = { project_id: v.project_id, name: v.name, type: v.type, conditions, actions };
  if (v.frequency !== '') body.frequency = v.frequency;
  if (v.environment !== '') body.environment = v.environment;
  return body;
}

export function registerAlertPages(http: HttpHost, kit: PageKit): void {
  const alertsPage = async (s: Signed, problems?: { values: Record<string, string>; errors: FieldError[] }) => {
    const projects = await kit.projectsOf(s);
    const projectIds = new Set(projects.map((p) => p.id));
    const rules = kit.alerts.rules.all().filter((r) => r.dataset === s.session.dataset && projectIds.has(r.project_id));
    const firings = new Map(await Promise.all(rules.map(async (r) => [r.id, await kit.alerts.outbox.recent(r.id, 10)] as const)));
    return kit.html(AlertsPage({ viewer: s.viewer, rules, firings, projects: projects.map((p) => p.id), problems }), problems ? 400 : 200);
  };

  /** The rule of this dataset and the session's projects, or 404. */
  const ownRule = async (s: Signed, id: string) => {
    const rule = kit.alerts.rules.get(id);
    const projectIds = new Set((await kit.projectsOf(s)).map((p) => p.id));
    if (!rule || rule.dataset !== s.session.dataset || !projectIds.has(rule.project_id)) kit.fail(404, `No alert rule ${id}.`);
    return rule;
  };

  http.page(
    'GET',
    '/alerts',
    kit.view((_event, s) => alertsPage(s)),
  );

  http.page(
    'POST',
    '/alerts',
    kit.action(async (_event, s, form) => {
      const values = Object.fromEntries(ALERT_FORM_FIELDS.map((k) => [k, String(form.get(k) ?? '').trim()]));
      if (!(await kit.projectsOf(s)).some((p) => p.id === values.project_id))
        return alertsPage(s, { values, errors: [{ path: 'project_id', message: 'is not a project of yours' }] });
      const checked = validateRule(ruleBodyFromForm(values));
      if ('errors' in checked) return alertsPage(s, { values, errors: checked.errors });
      try {
        await kit.alerts.createRule(checked.rule, { dataset: s.session.dataset, orgId: s.principal.orgId });
      } catch (error) {
        if (error instanceof DestinationsRefusedError) return alertsPage(s, { values, errors: error.details });
        if (error instanceof RuleLimitError) return alertsPage(s, { values, errors: [{ path: 'project_id', message: error.message }] });
        throw error;
      }
      return kit.redirect('/alerts');
    }, 'admin'),
  );

  http.page(
    'POST',
    '/alerts/:id/enabled',
    kit.action(async (event, s, form) => {
      const rule = await ownRule(s, decodeURIComponent(event.context.params?.id ?? ''));
      const { project_id, name, type, conditions, actions, environment, frequency } = rule;
      const input: AlertRuleInput = { project_id, name, type, conditions, actions, environment, frequency, enabled: form.get('enabled') === 'true' };
      await kit.alerts.rules.update(rule.id, input);
      return kit.redirect('/alerts');
    }, 'admin'),
  );

  http.page(
    'POST',
    '/alerts/:id/delete',
    kit.action(async (event, s) => {
      const rule = await ownRule(s, decodeURIComponent(event.context.params?.id ?? ''));
      await kit.alerts.rules.delete(rule.id);
      return kit.redirect('/alerts');
    }, 'admin'),
  );
}
