// Regression rules for issues that returned from "ignore until" by time (minutes, until): no event
// carries these, so the runtime hears them from IssueIgnores and records the firings here, as the
// processor does for a reopened issue. An escalation by an event fires on that event (processor.ts).
import { firingKey, type NewFiring } from '../../extensions/alerts/alert-outbox.js';
import type { StateChange } from '../../extensions/alerts/alert-rules.js';
import type { IssueEscalation } from '../../extensions/issues/issue-ignores.js';
import { readSideOf } from '../../extensions/query/index.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import { catalogOf } from '../../extensions/catalog/index.js';
import { buildPayload, type IssueFacts } from './payload.js';
import { quietEnough } from './processor.js';
import type { AlertingRuntime } from './runtime.js';

export async function fireEscalation(runtime: AlertingRuntime, escalation: IssueEscalation): Promise<void> {
  if (escalation.cause !== 'time') return;
  const { host } = runtime;
  try {
    const { dataset, projectId, issueId } = escalation;
    // Without an event there is no environment: rules bound to one do not hear it.
    const rules = (alertsOf(host).rules.active(dataset, projectId)?.regression ?? []).filter((rule) => rule.environment === null);
    if (rules.length === 0) return;
    const project = await catalogOf(host).project(projectId);
    const storage = readSideOf(host);
    const found = storage?.reads('events') ? await storage.issues.get(dataset, [projectId], issueId) : undefined;
    const issue: IssueFacts = {
      id: issueId,
      title: found?.title ?? issueId,
      culprit: found?.culprit ?? null,
      count: found?.count ?? 0,
      status: 'unresolved',
    };
    const firings: NewFiring[] = [];
    for (const rule of rules) {
      if (!(await quietEnough(alertsOf(host), rule, issueId, escalation.at))) continue;
      const key = firingKey(rule.id, issueId, 'escalated', escalation.ignoredAt);
      const payload = buildPayload({
        key,
        rule,
        state: 'firing',
        firedAt: escalation.at,
        project: { id: projectId, name: project?.name ?? projectId },
        appUrl: host.settings.app_url,
        issue,
        transition: 'escalated',
      });
      firings.push({
        key,
        ruleId: rule.id,
        dataset,
        projectId,
        state: 'firing',
        issueId,
        firedAt: escalation.at,
        payload: { ...payload },
        actions: rule.actions,
      });
    }
    const states = firings.map((f): StateChange => ({ ruleId: f.ruleId, state: 'firing', at: f.firedAt, fired: true, firingKey: f.key }));
    const recorded = await runtime.recordIssueFirings(firings, states);
    for (const _ of recorded) runtime.metrics.firings.inc({ type: 'regression', state: 'firing' });
    if (recorded.length) runtime.wake();
  } catch (error) {
    host.logger.error({ err: error, issue: escalation.issueId }, 'recording the alert of an issue back from ignore failed');
  }
}
