// Evaluates the counting rules (error_spike, latency) on the processor's timer: a rule whose
// condition starts to hold becomes `firing` and notifies; one still firing reminds once per
// `frequency`; one whose condition cleared becomes `ok` and sends `resolved` (if its firing was
// notified). The firing and the state change are recorded together, in the outbox's transaction.
// Issue rules (new_issue, regression) fire from the processor; here they only return to `ok`.
import { readSideOf } from '../../extensions/query/index.js';
import { parseDuration } from '../../src/records/alert-rule.js';
import { firingKey, type NewFiring } from '../../extensions/alerts/alert-outbox.js';
import type { AlertRule, StateChange } from '../../extensions/alerts/alert-rules.js';
import { buildPayload, type IssueFacts } from './payload.js';
import type { AlertingRuntime } from './runtime.js';
import { measure, prune, type Measurement, type RuleWindow } from './windows.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import { catalogOf } from '../../extensions/catalog/index.js';

export class Evaluator {
  constructor(private readonly runtime: AlertingRuntime) {}

  async run(now: number): Promise<void> {
    const { host } = this.runtime;
    const firings: NewFiring[] = [];
    const states: StateChange[] = [];
    const live = new Set<string>();
    for (const type of ['error_spike', 'latency'] as const) {
      if (!this.runtime.handles(type === 'latency' ? 'traces' : 'events')) continue;
      for (const rule of alertsOf(host).rules.enabled(type)) {
        live.add(rule.id);
        const window = this.runtime.window(rule);
        prune(rule, window, now);
        const measured = measure(rule, window, now);
        rule.last_evaluated_at = now;
        rule.last_value = measured.value;
        const decision = decide(rule, measured, now);
        if (!decision) continue;
        states.push(decision.change);
        if (decision.notify) firings.push(await this.firing(rule, decision.notify, measured, window, now));
      }
    }
    if (this.runtime.handles('events'))
      for (const type of ['new_issue', 'regression'] as const) states.push(...quietIssueRules(alertsOf(host).rules.enabled(type), now));
    for (const id of this.runtime.windows.keys()) if (!live.has(id) && !alertsOf(host).rules.get(id)?.enabled) this.runtime.windows.delete(id);
    if (states.length === 0) return;
    const recorded = new Set(await alertsOf(host).outbox.record(firings, states));
    for (const firing of firings)
      if (recorded.has(firing.key)) this.runtime.metrics.firings.inc({ type: alertsOf(host).rules.get(firing.ruleId)?.type ?? 'unknown', state: firing.state });
    if (recorded.size) this.runtime.wake();
  }

  private async firing(rule: AlertRule, state: 'firing' | 'resolved', measured: Measurement, window: RuleWindow, now: number): Promise<NewFiring> {
    const { host } = this.runtime;
    const key = firingKey(rule.id, state, Math.floor(now / this.runtime.config.evaluation_interval_ms));
    const project = await catalogOf(host).project(rule.project_id);
    const event = window.kind === 'error_spike' ? window.lastEvent : undefined;
    let issue: IssueFacts | undefined;
    const issueId = (rule.conditions as { issue_id?: string }).issue_id;
    const storage = readSideOf(host);
    if (issueId && storage?.reads('events')) {
      const found = await storage.issues.get(rule.dataset, [rule.project_id], issueId);
      if (found) issue = { id: found.id, title: found.title, culprit: found.culprit, count: found.count, status: found.status };
    }
    const payload = buildPayload({
      key,
      rule,
      state,
      firedAt: now,
      project: { id: rule.project_id, name: project?.name ?? rule.project_id },
      appUrl: host.settings.app_url,
      issue,
      event,
      measurement: measured,
    });
    return {
      key,
      ruleId: rule.id,
      dataset: rule.dataset,
      projectId: rule.project_id,
      state,
      issueId: issue?.id,
      firedAt: now,
      payload: { ...payload },
      actions: rule.actions,
    };
  }
}

/** What a rule's state does given what was measured: nothing, or a change and maybe a notification. */
export function decide(rule: AlertRule, measured: Measurement, now: number): { change: StateChange; notify?: 'firing' | 'resolved' } | undefined {
  const frequency = parseDuration(rule.frequency) ?? 0;
  const quietEnough = rule.last_fired_at === null || now - rule.last_fired_at >= frequency;
  if (measured.holds) {
    if (rule.state === 'firing' && !quietEnough) return undefined;
    // Newly firing (notified unless the last notification is too recent), or a reminder after `frequency`.
    return { change: { ruleId: rule.id, state: 'firing', at: now, fired: quietEnough }, notify: quietEnough ? 'firing' : undefined };
  }
  if (rule.state !== 'firing') return undefined;
  // Resolved: say so if the firing was notified.
  const notified = rule.last_fired_at !== null && rule.state_changed_at !== null && rule.last_fired_at >= rule.state_changed_at;
  return { change: { ruleId: rule.id, state: 'ok', at: now, fired: false }, notify: notified ? 'resolved' : undefined };
}

/**
 * Issue rules fire on an event, and nothing clears them: one is `firing` from its last firing
 * until its `frequency` has passed (at least one evaluation), then `ok` again, without a notification.
 */
export function quietIssueRules(rules: Iterable<AlertRule>, now: number): StateChange[] {
  const changes: StateChange[] = [];
  for (const rule of rules) {
    if (rule.state !== 'firing') continue;
    const frequency = parseDuration(rule.frequency) ?? 0;
    if (rule.last_fired_at === null || now - rule.last_fired_at >= frequency) changes.push({ ruleId: rule.id, state: 'ok', at: now, fired: false });
  }
  return changes;
}
