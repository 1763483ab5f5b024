// Assignment notices: an issue assigned to someone other than the one who assigned it emails the
// assignee, through the alerting outbox (src/storage/alert-outbox.ts), so a failure is retried like
// an alert's email with the same backoff. Subscribed to IssueTriage.onAssigned by the service.
import type { AssignmentPayload } from '../../src/records/notification-email.js';
import type { Alerts } from './alerts.js';
import { firingKey } from './alert-outbox.js';
import type { Catalog } from '../catalog/catalog.js';
import type { AssignmentListener } from '../query/issue-triage.js';

/** The outbox's rule id of assignment notices (no alert rule has it: rule ids are generated). */
export const ASSIGNMENT_NOTICES = 'assignment';

export function assignmentNotices(alerts: Alerts, catalog: Catalog, appUrl: string): AssignmentListener {
  return async ({ issue, assignee, actor, dataset }) => {
    if (actor.kind === 'user' && actor.id === assignee.id) return; // assigning yourself tells you nothing
    if (!alerts.mailer) return; // email is off (service.smtp)
    const now = Date.now();
    const key = firingKey(ASSIGNMENT_NOTICES, dataset, issue.id, assignee.id, now);
    const project = await catalog.project(issue.project_id);
    const payload: AssignmentPayload = {
      kind: 'assignment',
      id: key,
      issue: {
        id: issue.id,
        title: issue.title,
        culprit: issue.culprit || null,
        count: issue.count,
        status: issue.status,
        permalink: `${appUrl}/issues/${issue.id}`,
      },
      project: { id: issue.project_id, name: project?.name ?? issue.project_id },
      assignee: { email: assignee.email },
      by: actor.kind === 'user' ? actor.email : `API key ${actor.id}`,
      assigned_at: new Date(now).toISOString(),
    };
    await alerts.outbox.record([
      {
        key,
        ruleId: ASSIGNMENT_NOTICES,
        dataset,
        projectId: issue.project_id,
        state: 'assignment',
        issueId: issue.id,
        firedAt: now,
        payload: { ...payload },
        actions: [{ type: 'email', to: [assignee.email] }],
      },
    ]);
    alerts.wake();
  };
}
