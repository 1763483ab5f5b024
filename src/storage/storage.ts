// The read side behind every read endpoint: events, issues and traces, each merged from the read
// sources of the exporters that `service.storage.<signal>` names (read-sources.ts).
import type { Signal } from '../engine/item.js';
import { EVENT_ROW_KEY } from '../records/event-row.js';
import { REPLAY_ROW_KEY } from '../records/replay-row.js';
import { SPAN_ROW_KEY } from '../records/span-row.js';
import type { Database } from './database.js';
import { EventStore } from './events.js';
import type { IssueStates } from './issue-states.js';
import { IssueStore } from './issues.js';
import { IssueTriage } from './issue-triage.js';
import type { ReadSource } from './read-source.js';
import { MergedSource } from './read-sources.js';
import { ReleaseStore } from './releases.js';
import { ReplayStore } from './replays.js';
import { TraceStore } from './traces.js';

export class Storage {
  readonly events: EventStore;
  readonly issues: IssueStore;
  readonly traces: TraceStore;
  readonly replays: ReplayStore;
  readonly releases: ReleaseStore;
  /** Merges, fingerprints, comments and the timeline of issues (issue #26). */
  readonly triage: IssueTriage;
  /** The merged rows themselves, for components that aggregate over them (the alerting processor's windows). */
  readonly eventRows: MergedSource;
  readonly spanRows: MergedSource;

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
    this.eventRows = events;
    this.spanRows = spans;
    this.events = new EventStore(db, events);
    this.issues = new IssueStore(db, events, states);
    this.traces = new TraceStore(db, spans, events);
    this.releases = new ReleaseStore(db, events, this.issues);
    this.triage = new IssueTriage(db, events, this.issues, states.redirects, states.activity);
    this.replays = new ReplayStore(db, new MergedSource('replays', sources.replays ?? [], REPLAY_ROW_KEY), events, appUrl);
  }

  /** Whether some exporter serves reads of the signal. */
  reads(signal: Signal): boolean {
    return (this.sources[signal]?.length ?? 0) > 0;
  }
}
