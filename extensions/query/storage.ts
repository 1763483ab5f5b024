// The read side behind every read endpoint: events, issues and traces, each merged from the read
// sources of the exporters that `service.storage.<signal>` names (read-sources.ts).
import type { Signal } from '../../src/engine/item.js';
import { EVENT_ROW_KEY } from '../../src/records/event-row.js';
import { REPLAY_ROW_KEY } from '../../src/records/replay-row.js';
import { SPAN_ROW_KEY } from '../../src/records/span-row.js';
import type { Database } from '../duckdb/database.js';
import { EventStore } from './events.js';
import type { IssueStates } from '../issues/issue-states.js';
import { IssueStore } from './issues.js';
import { IssueViews } from './issue-views.js';
import type { ReadSource } from '../../src/engine/read-source.js';
import { IssueMerges } from './issue-merges.js';
import { MergedSource } from './read-sources.js';
import { ReleaseStore } from './releases.js';
import { ReplayStore } from './replays.js';
import { TraceStore } from './traces.js';
import { WindowCounts } from './window-counts.js';
import { IssueFinder } from './issue-finder.js';
import { IssueTriage } from './issue-triage.js';

export class Storage {
  readonly events: EventStore;
  readonly issues: IssueStore;
  /** Issue lists with the search language, and bulk selections. */
  readonly issueFinder: IssueFinder;
  /** Assignments and bulk changes (and the onAssigned hook). */
  readonly triage: IssueTriage;
  readonly traces: TraceStore;
  readonly replays: ReplayStore;
  readonly releases: ReleaseStore;
  /** The web app's issue reads: filtered and sorted lists, timelines, tag distributions. */
  readonly issueViews: IssueViews;
  /** What the alerting processor rebuilds its rule windows from. */
  readonly windowCounts: WindowCounts;
  /** Merges, fingerprints, comments and the timeline of issues. */
  readonly merges: IssueMerges;

  constructor(
    db: Database,
    states: IssueStates,
    private readonly sources: Partial<Record<Signal, ReadSource[]>>,
    /** The service's public URL (links in replay documents). */
    appUrl = '',
  ) {
    const events = new MergedSource('events', sources.events ?? [], EVENT_ROW_KEY);
    events.remap = { relation: (r, p) => states.redirects.remapRelation(r, p), document: (row, doc) => states.redirects.remapDocument(row, doc) };
    const spans = new MergedSource('traces', sources.traces ?? [], SPAN_ROW_KEY);
    this.events = new EventStore(db, events);
    this.issues = new IssueStore(db, events, states);
    this.issueFinder = new IssueFinder(db, events, this.issues);
    this.triage = new IssueTriage(db, states);
    this.traces = new TraceStore(db, spans, events);
    this.releases = new ReleaseStore(db, events, this.issues);
    this.issueViews = new IssueViews(db, events);
    this.windowCounts = new WindowCounts(db, events, spans);
    this.merges = new IssueMerges(db, events, this.issues, states.redirects, states.activity);
    this.replays = new ReplayStore(db, new MergedSource('replays', sources.replays ?? [], REPLAY_ROW_KEY), events, appUrl);
  }

  /** Whether some exporter serves reads of the signal. */
  reads(signal: Signal): boolean {
    return (this.sources[signal]?.length ?? 0) > 0;
  }
}
