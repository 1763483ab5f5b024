// Alerting's control plane in one place, offered to components as host.alerts: the rules, the
// outbox, and the wake-up of the delivery loop that the alerting processor runs (if any does).
import { randomUUID } from 'node:crypto';
import { describe, type AlertPayload } from '../records/alert-payload.js';
import type { Database } from './database.js';
import { AlertOutbox, firingKey, type NewFiring } from './alert-outbox.js';
import type { Dataset } from '../engine/item.js';
import { AlertRules, type AlertRule } from './alert-rules.js';

export class Alerts {
  readonly rules: AlertRules;
  readonly outbox: AlertOutbox;
  private deliverer?: () => void;

  constructor(db: Database) {
    this.rules = new AlertRules(db);
    this.outbox = new AlertOutbox(db, this.rules);
  }

  /** The alerting processor's delivery loop registers here while it runs (undefined: it stopped). */
  setDeliverer(wake: (() => void) | undefined): void {
    this.deliverer = wake;
  }

  /** Whether some delivery loop runs in this process (else the outbox waits for one). */
  get delivering(): boolean {
    return this.deliverer !== undefined;
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
    const head: Omit<AlertPayload, 'text'> = {
      id: key,
      rule: { id: rule.id, name: rule.name, type: rule.type },
      state: 'test',
      fired_at: new Date(now).toISOString(),
      project,
      environment: rule.environment,
      issue: null,
      event: null,
      value: null,
      threshold: null,
      unit: null,
      window: (rule.conditions as { window?: string }).window ?? null,
      transition: null,
    };
    const payload: AlertPayload = { ...head, text: describe(head) };
    await this.outbox.record([
      { key, ruleId: rule.id, dataset: rule.dataset, projectId: rule.project_id, state: 'test', firedAt: now, payload: { ...payload }, actions: rule.actions },
    ]);
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
      const key = firingKey(rule.id, issue.id, 'resolved', now);
      const head: Omit<AlertPayload, 'text'> = {
        id: key,
        rule: { id: rule.id, name: rule.name, type: rule.type },
        state: 'resolved',
        fired_at: new Date(now).toISOString(),
        project,
        environment: rule.environment,
        issue: { id: issue.id, title: issue.title, culprit: null, count: 0, status: 'resolved', permalink: issue.permalink },
        event: null,
        value: null,
        threshold: null,
        unit: null,
        window: null,
        transition: 'resolved',
      };
      const payload: AlertPayload = { ...head, text: describe(head) };
      firings.push({ key, ruleId: rule.id, dataset: rule.dataset, projectId: rule.project_id, state: 'resolved', issueId: issue.id, firedAt: now, payload: { ...payload }, actions: rule.actions });
    }
    if (firings.length) {
      await this.outbox.record(firings);
      this.wake();
    }
    return firings.length;
  }
}
