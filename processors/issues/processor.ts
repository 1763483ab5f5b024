// Decides, before export, what each event does to its issue: opens it (`new`) or reopens a
// resolved one (`regressed`), recording the transition in the catalog (src/storage/issue-states.ts)
// and on the event (`issue_transition`, not stored), where later processors (alerting) see it.
import type { Logger } from 'pino';
import type { Processor } from '../../src/engine/component.js';
import { ExportError } from '../../src/engine/errors.js';
import { recordItems, type Item } from '../../src/engine/item.js';
import type { IssueStates } from '../../extensions/issues/issue-states.js';
import { recordRegressions } from '../../extensions/issues/issue-activity.js';

export class IssuesProcessor implements Processor {
  constructor(
    private readonly id: string,
    private readonly states: IssueStates,
    private readonly logger: Logger,
    private readonly ignoreCheckIntervalMs: number,
  ) {}

  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  start(): Promise<void> {
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    }, this.ignoreCheckIntervalMs);
    this.timer.unref();
    return Promise.resolve();
  }

  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await this.states.ignores.flush().catch((error: unknown) => this.logger.error({ err: error, processor: this.id }, 'storing ignore-until progress failed'));
  }

  /** Issues ignored for some minutes or until a time whose time has come are unresolved again. */
  private async sweep(): Promise<void> {
    try {
      await this.states.ignores.escalateDue();
      await this.states.ignores.flush();
    } catch (error) {
      this.logger.error({ err: error, processor: this.id }, 'returning ignored issues failed; trying again at the next interval');
    }
  }

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
      // Ignored issues that return by themselves: the event that meets the condition escalates its issue.
      if (this.states.ignores.watching) {
        const escalated = await this.states.ignores.observe(events.map(({ data }, i) => ({ ...observations[i], user: data.user })));
        for (const i of escalated) transitions[i] = 'escalated';
      }
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
