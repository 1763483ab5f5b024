// Alerting's control plane in one place, offered to components as host.alerts: the rules, the
// outbox, and the wake-up of the delivery loop that the alerting processor runs (if any does).
import { randomUUID } from 'node:crypto';
import type { Dataset, FieldError } from '../../src/engine/item.js';
import { DestinationGuard, type DestinationPolicy } from '../../src/net/destinations.js';
import { describe, type AlertPayload } from '../../src/records/alert-payload.js';
import type { AlertAction, AlertRuleInput } from '../../src/records/alert-rule.js';
import type { Database } from '../duckdb/database.js';
import { AlertLimits, type AlertLimitSettings } from './alert-limits.js';
import { AlertOutbox, firingKey, type NewFiring } from './alert-outbox.js';
import { AlertRules, type AlertRule } from './alert-rules.js';
import type { AlertDeliveryChange, AlertFiringChange } from './alert-sharing.js';
import type { Mailer } from '../../src/net/mailer.js';

/** A rule's actions name destinations that are refused: one entry per action (`actions[i].url`). */
export class DestinationsRefusedError extends Error {
  constructor(readonly details: FieldError[]) {
    super(`the rule is invalid: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
    this.name = 'DestinationsRefusedError';
  }
}

export class Alerts {
  readonly rules: AlertRules;
  readonly outbox: AlertOutbox;
  /** Where notifications may go: checked when a rule is saved, and by the delivery loop on each request. */
  readonly destinations = new DestinationGuard();
  readonly limits: AlertLimits;
  /** The SMTP client email actions and assignment notices go through; undefined: service.smtp is not set. */
  mailer?: Mailer;
  private deliverer?: () => void;

  constructor(db: Database) {
    this.rules = new AlertRules(db);
    this.outbox = new AlertOutbox(db, this.rules);
    this.limits = new AlertLimits((dataset, projectId) => this.rules.count(dataset, projectId));
  }

  /** The service's alerting settings (from its `alerting` processor section, or the defaults). */
  configure(settings: Pick<DestinationPolicy, 'allowPrivate'> & AlertLimitSettings): void {
    this.destinations.policy.allowPrivate = settings.allowPrivate;
    this.limits.configure(settings);
  }

  /** One field error per action whose URL is, or resolves to, an address that is refused. */
  async refusedDestinations(actions: AlertAction[]): Promise<FieldError[]> {
    const checks = actions.map(async (action, i): Promise<FieldError | undefined> => {
      if (action.type === 'log') return undefined;
      if (action.type === 'email')
        return this.mailer ? undefined : { path: `actions[${i}]`, message: 'cannot send email: SMTP is not configured (set service.smtp.host)' };
      const refusal = await this.destinations.refusal(new URL(action.url));
      return refusal && { path: `actions[${i}].url`, message: refusal.message };
    });
    return (await Promise.all(checks)).filter((e) => e !== undefined);
  }

  /**
   * Creates a rule (POST /v1/alerts, the web app) once its destinations pass and its project has
   * room: throws DestinationsRefusedError or RuleLimitError otherwise.
   */
  async createRule(input: AlertRuleInput, tenant: { dataset: Dataset; orgId: string }): Promise<AlertRule> {
    const refused = await this.refusedDestinations(input.actions);
    if (refused.length) throw new DestinationsRefusedError(refused);
    const release = this.limits.reserveRule(tenant.dataset, input.project_id);
    try {
      return await this.rules.create(input, tenant);
    } finally {
      release();
    }
  }

  /**
   * Changes a rule (PATCH /v1/alerts/{id}), checking the destinations when the actions are new
   * (a stored rule can still be muted or renamed) and the room in a project it moves to.
   */
  async updateRule(rule: AlertRule, input: AlertRuleInput, actionsChanged: boolean): Promise<AlertRule | undefined> {
    if (actionsChanged) {
      const refused = await this.refusedDestinations(input.actions);
      if (refused.length) throw new DestinationsRefusedError(refused);
    }
    const release = input.project_id === rule.project_id ? () => undefined : this.limits.reserveRule(rule.dataset, input.project_id);
    try {
      return await this.rules.update(rule.id, input);
    } finally {
      release();
    }
  }

  /** The alerting processor's delivery loop registers here while it runs (undefined: it stopped). */
  setDeliverer(wake: (() => void) | undefined): void {
    this.deliverer = wake;
  }

  /** Whether some delivery loop runs in this process (else the outbox waits for one). */
  get delivering(): boolean {
    return this.deliverer !== undefined;
  }

  /** A shared firing or delivery outcome another node recorded (the control plane applies it); new firings may be this node's to send. */
  async applyShared(change: AlertFiringChange | AlertDeliveryChange, partition: number): Promise<void> {
    await this.outbox.applyShared(change, partition);
    if (change.kind === 'alert_firing') this.wake();
  }

  /** Tells the delivery loop that new deliveries are due. */
  wake(): void {
    this.deliverer?.();
  }

  /**
   * Queues a test notification through every action of a rule (`faultline alerts test`,
   * POST /v1/alerts/{id}/test) and wakes the delivery loop. Resolves with the firing's key.
   */
  async test(rule: AlertRule, project: { id: string; name: string }, now = Date.now()): Promise<{ key: string; deliveries: number }> {
    const key = firingKey(rule.id, 'test', randomUUID());
    await this.outbox.record([notification(rule, key, 'test', project, now, { window: (rule.conditions as { window?: string }).window ?? null })]);
    this.wake();
    return { key, deliveries: rule.actions.length };
  }

  /**
   * An issue came right by itself (a monitor's next good run): each enabled issue rule of its
   * tenant that notified about it hears so once, as a `resolved` notification through its actions.
   * Resolves with the number of notifications queued.
   */
  async issueRecovered(
    issue: { dataset: Dataset; projectId: string; id: string; title: string; permalink: string },
    project: { id: string; name: string },
    now = Date.now(),
  ): Promise<number> {
    const rules = this.rules.active(issue.dataset, issue.projectId);
    const firings: NewFiring[] = [];
    for (const rule of [...(rules?.new_issue ?? []), ...(rules?.regression ?? [])]) {
      if ((await this.outbox.lastFiring(rule.id, issue.id)) === null) continue;
      const facts = { id: issue.id, title: issue.title, culprit: null, count: 0, status: 'resolved', permalink: issue.permalink };
      firings.push({
        ...notification(rule, firingKey(rule.id, issue.id, 'resolved', now), 'resolved', project, now, { issue: facts, transition: 'resolved' }),
        issueId: issue.id,
      });
    }
    if (firings.length) {
      await this.outbox.record(firings);
      this.wake();
    }
    return firings.length;
  }
}

/** A notification about a rule that no event or measurement carries (a test, an issue that recovered). */
function notification(
  rule: AlertRule,
  key: string,
  state: 'test' | 'resolved',
  project: { id: string; name: string },
  now: number,
  facts: Partial<Pick<AlertPayload, 'issue' | 'window' | 'transition'>>,
): NewFiring {
  const head: Omit<AlertPayload, 'text'> = {
    id: key,
    rule: { id: rule.id, name: rule.name, type: rule.type },
    state,
    fired_at: new Date(now).toISOString(),
    project,
    environment: rule.environment,
    issue: null,
    event: null,
    value: null,
    threshold: null,
    unit: null,
    window: null,
    transition: null,
    ...facts,
  };
  const payload: AlertPayload = { ...head, text: describe(head) };
  return { key, ruleId: rule.id, dataset: rule.dataset, projectId: rule.project_id, state, firedAt: now, payload: { ...payload }, actions: rule.actions };
}
