// The issues extension: every issue's status (issue-states.ts) and each project's grouping version
// with its aliases (grouping-versions.ts).
import type { Extension } from '../../src/engine/extension.js';
import { migrateExtension, type Database } from '../duckdb/index.js';
import { GroupingVersions } from './grouping-versions.js';
import { IssueStates } from './issue-states.js';
import { ISSUES_MIGRATIONS } from './migrations.js';

export class IssuesExtension implements Extension {
  readonly issueStates: IssueStates;
  readonly groupingVersions: GroupingVersions;

  constructor(private readonly db: Database) {
    this.issueStates = new IssueStates(db);
    this.groupingVersions = new GroupingVersions(db);
  }

  async start(): Promise<void> {
    await migrateExtension(this.db, 'issues', ISSUES_MIGRATIONS);
  }
}
