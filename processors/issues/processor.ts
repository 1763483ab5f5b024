// Decides, before export, what each event does to its issue: opens it (`new`) or reopens a
// resolved one (`regressed`), recording the transition in the catalog (src/storage/issue-states.ts)
// and on the event (`issue_transition`, not stored), where later processors (alerting) see it.
import type { Processor } from '../../src/engine/component.js';
import { ExportError } from '../../src/engine/errors.js';
import { recordItems, type Item } from '../../src/engine/item.js';
import type { IssueStates } from '../../src/storage/issue-states.js';
import { recordRegressions } from '../../src/storage/issue-activity.js';

export class IssuesProcessor implements Processor {
  constructor(
    private readonly id: string,
    private readonly states: IssueStates,
  ) {}

  async process(items: Item[]): Promise<void> {
    const events = recordItems('events', items).filter((item) => item.data.issue_id !== undefined);
    if (events.length === 0) return;
    const observations = events.map(({ tenant, data }) => ({
      dataset: tenant.dataset,
      projectId: tenant.projectId,
      issueId: data.issue_id as string,
      eventId: data.id,
      fallbackIssueId: data.grouping_fallback_issue_id,
    }));
    let transitions;
    try {
      // Aliases and the previous grouping version's issues first: the transition is the issue's the event lands in.
      await this.states.resolve(observations);
      // Merged issues: the event joins the issue its grouping id belongs to, and is stored under its grouping id.
      const groupingIds = this.states.redirects.route(observations);
      events.forEach((item, i) => {
        item.data.issue_id = observations[i].issueId;
        if (groupingIds[i] !== observations[i].issueId) item.data.grouping_id = groupingIds[i];
      });
      transitions = await this.states.observe(observations);
      await recordRegressions(this.states.activity, observations, transitions);
    } catch (error) {
      // The catalog could not record it: nothing is acknowledged, the sender retries (503).
      throw new ExportError(this.id, error);
    }
    events.forEach((item, i) => {
      const transition = transitions[i];
      if (transition) item.data.issue_transition = transition;
    });
  }
}
