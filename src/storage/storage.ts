// The read side behind every read endpoint: events, issues and traces from the source configured
// per signal (service.storage: duckdb, parquet or both; see sources.ts).
import type { ServiceSettings } from '../config/service-schema.js';
import type { Database } from './database.js';
import { EventStore } from './events.js';
import { IssueStore } from './issues.js';
import { ReadSources } from './sources.js';
import { TraceStore } from './traces.js';

export class Storage {
  readonly sources: ReadSources;
  readonly events: EventStore;
  readonly issues: IssueStore;
  readonly traces: TraceStore;

  constructor(db: Database, settings: Pick<ServiceSettings, 'lake' | 'storage'>) {
    this.sources = new ReadSources(settings.lake.path, settings.storage);
    this.events = new EventStore(db, this.sources);
    this.issues = new IssueStore(db, this.sources);
    this.traces = new TraceStore(db, this.sources);
  }
}
