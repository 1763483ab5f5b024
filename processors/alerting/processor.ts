// The alerting processor: last in the events pipeline (new_issue, regression, error_spike) and in
// the traces pipeline (latency). Per item it costs a map lookup of the tenant's enabled rules and,
// for a counting rule that matches, a bucket increment; no query. An event that opened or reopened
// its issue (issue_transition, set by the issues processor) fires the tenant's issue rules: the
// firing is recorded in the outbox under a key derived from rule, issue and transition before the
// batch goes on, so a copy of the event, a retry or another process records it once.
import { readSideOf } from '../../extensions/query/index.js';
import type { Processor } from '../../src/engine/component.js';
import { ExportError } from '../../src/engine/errors.js';
import { recordItems, type Item, type RecordItem, type Signal } from '../../src/engine/item.js';
import type { AlertPayload } from '../../src/records/alert-payload.js';
import { parseDuration } from '../../src/records/alert-rule.js';
import type { IssueTransition } from '../../src/records/event.js';
import { firingKey, type NewFiring } from '../../extensions/alerts/alert-outbox.js';
import type { AlertRule, StateChange } from '../../extensions/alerts/alert-rules.js';
import { buildPayload } from './payload.js';
import type { AlertingRuntime } from './runtime.js';
import { eventMatches, spanMatches, spanMicros } from './windows.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import type { Alerts } from '../../extensions/alerts/alerts.js';
import { catalogOf } from '../../extensions/catalog/index.js';

interface IssueHit {
  item: RecordItem<'events'>;
  rule: AlertRule;
  transition: IssueTransition;
}

/** `frequency` for issue rules counts per issue: a regression this soon after the last one notified is not notified. */
export async function quietEnough(alerts: Alerts, rule: AlertRule, issueId: string, now: number): Promise<boolean> {
  const frequency = parseDuration(rule.frequency) ?? 0;
  if (frequency === 0) return true;
  const last = await alerts.outbox.lastFiring(rule.id, issueId);
  return last === null || now - last >= frequency;
}

export class AlertingProcessor implements Processor {
  constructor(
    private readonly runtime: AlertingRuntime,
    private readonly signal: Signal,
  ) {}

  start(): Promise<void> {
    this.runtime.acquire(this.signal);
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.runtime.release(this.signal);
  }

  async process(items: Item[]): Promise<void> {
    const rules = alertsOf(this.runtime.host).rules;
    if (this.signal === 'traces') {
      for (const item of recordItems('traces', items)) {
        const latency = rules.active(item.tenant.dataset, item.tenant.projectId)?.latency;
        if (!latency) continue;
        for (const rule of latency) {
          if (!spanMatches(rule, item.data)) continue;
          const window = this.runtime.window(rule);
          if (window.kind === 'latency') window.durations.add(item.receivedAt, spanMicros(item.data));
        }
      }
      return;
    }
    let hits: IssueHit[] | undefined;
    for (const item of recordItems('events', items)) {
      const tenant = rules.active(item.tenant.dataset, item.tenant.projectId);
      if (!tenant) continue;
      const event = item.data;
      const transition = event.issue_transition;
      if (transition) {
        for (const rule of transition === 'new' ? tenant.new_issue : tenant.regression)
          if (rule.environment === null || rule.environment === event.environment) (hits ??= []).push({ item, rule, transition });
      }
      for (const rule of tenant.error_spike) {
        if (!eventMatches(rule, event)) continue;
        const window = this.runtime.window(rule);
        if (window.kind !== 'error_spike') continue;
        window.current.add(item.receivedAt);
        window.baseline?.add(item.receivedAt);
        window.lastEvent = event;
      }
    }
    if (hits) await this.fire(hits);
  }

  /** Records the firings of issue rules (rare: new and reopened issues only). */
  private async fire(hits: IssueHit[]): Promise<void> {
    const { host } = this.runtime;
    try {
      const firings = new Map<string, NewFiring>();
      for (const { item, rule, transition } of hits) {
        const event = item.data;
        const issueId = event.issue_id as string;
        const key =
          transition === 'new'
            ? firingKey(rule.id, issueId, 'new')
            : // Each regression is the work of one event (a retry or copy of it is that regression again, see
              // IssueStates): the same key in every process, and a new one for the next regression.
              firingKey(rule.id, issueId, 'regressed', event.id);
        if (firings.has(key)) continue;
        if (transition !== 'new' && !(await quietEnough(alertsOf(host), rule, issueId, item.receivedAt))) continue;
        const now = Date.now();
        const project = await catalogOf(host).project(rule.project_id);
        const payload: AlertPayload = buildPayload({
          key,
          rule,
          state: 'firing',
          firedAt: now,
          project: { id: rule.project_id, name: project?.name ?? rule.project_id },
          appUrl: host.settings.app_url,
          issue: {
            id: issueId,
            title: event.title ?? `${event.exception.type}: ${event.exception.value}`,
            culprit: event.culprit ?? null,
            count: await this.issueCount(item, issueId, transition),
            status: transition === 'regressed' ? 'regressed' : 'unresolved',
          },
          event,
          transition,
        });
        firings.set(key, {
          key,
          ruleId: rule.id,
          dataset: rule.dataset,
          projectId: rule.project_id,
          state: 'firing',
          issueId,
          firedAt: now,
          payload: { ...payload },
          actions: rule.actions,
        });
      }
      // The rule shows it fired (state, last_fired_at) when the firing is new, not for a copy's.
      const states = [...firings.values()].map((f): StateChange => ({ ruleId: f.ruleId, state: 'firing', at: f.firedAt, fired: true, firingKey: f.key }));
      const recorded = await this.runtime.recordIssueFirings([...firings.values()], states);
      for (const key of recorded)
        this.runtime.metrics.firings.inc({ type: alertsOf(host).rules.get(firings.get(key)?.ruleId ?? '')?.type ?? 'unknown', state: 'firing' });
      if (recorded.length) this.runtime.wake();
    } catch (error) {
      // Not recorded: nothing is acknowledged and the sender retries, so the alert is not lost.
      throw new ExportError(this.runtime.id, error);
    }
  }

  private async issueCount(item: RecordItem<'events'>, issueId: string, transition: IssueTransition): Promise<number> {
    const storage = readSideOf(this.runtime.host);
    if (transition === 'new' || !storage?.reads('events')) return 1;
    const { dataset, projectId } = item.tenant;
    const [issue, stored] = await Promise.all([storage.issues.get(dataset, [projectId], issueId), storage.events.get(dataset, [projectId], item.data.id)]);
    return (issue?.count ?? 0) + (stored === undefined ? 1 : 0); // with this event, which a copy may have stored already
  }
}
