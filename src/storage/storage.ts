// The read side behind every read endpoint. Today it reads the DuckDB tables; the Parquet lake
// plugs in here as another source of the same interfaces.
import type { Database } from './database.js';
import { EventStore } from './events.js';
import { IssueStore } from './issues.js';
import { TraceStore } from './traces.js';

export class Storage {
  readonly events: EventStore;
  readonly issues: IssueStore;
  readonly traces: TraceStore;

  constructor(db: Database) {
    this.events = new EventStore(db);
    this.issues = new IssueStore(db);
    this.traces = new TraceStore(db);
  }
}
