// The query layer as an extension: started before the pipelines (so components can hold it from
// the start), and given the read sources once the exporters that offer them have started — until
// then `storage` is undefined and readers wait (alerting rebuilds its windows on a later round).
import { z } from 'zod';
import type { ReadSource } from '../../src/engine/read-source.js';
import { requireExtension, optionalExtension, type Extension, type ExtensionFactory, type ExtensionLookup } from '../../src/engine/extension.js';
import type { Signal } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import type { IssueStates } from '../issues/issue-states.js';
import { Storage } from './storage.js';
import { databaseOf } from '../duckdb/index.js';
import { issueStatesOf } from '../issues/index.js';

export class QueryExtension implements Extension {
  private attached?: Storage;

  constructor(
    private readonly db: Database,
    private readonly states: IssueStates,
    /** The service's public URL (links in replay documents). */
    private readonly appUrl: string,
  ) {}

  /** Nothing to open: the tables it reads are the exporters' and the issues extension's. */
  async start(): Promise<void> {}

  /** Reads over the sources of the exporters `service.storage.<signal>` names, in order; once, after they started. */
  attach(sources: Partial<Record<Signal, ReadSource[]>>): Storage {
    if (this.attached) throw new Error('the query layer already has its read sources');
    this.attached = new Storage(this.db, this.states, sources, this.appUrl);
    return this.attached;
  }

  /** The read side, or undefined while the exporters start. */
  get storage(): Storage | undefined {
    return this.attached;
  }
}

export const QUERY_EXTENSION_ID = 'query';

/** The running query layer (components that declare `extensions: ['query']`). */
export function queryOf(host: ExtensionLookup): QueryExtension {
  return requireExtension(host, QUERY_EXTENSION_ID, QueryExtension);
}

/** The read side if the query layer runs and has its sources, else undefined. */
export function readSideOf(host: ExtensionLookup): Storage | undefined {
  return optionalExtension(host, QUERY_EXTENSION_ID, QueryExtension)?.storage;
}

export const queryConfigSchema = z.object({}).strict();

export const queryExtensionFactory: ExtensionFactory<z.infer<typeof queryConfigSchema>> = {
  kind: 'extension',
  type: QUERY_EXTENSION_ID,
  description: 'The read side: every SQL read over stored events, issues, traces, replays and releases, and alert windows',
  configSchema: queryConfigSchema,
  defaultConfig: () => ({}),
  dependencies: ['duckdb', 'issues'],
  create: ({ host }) => new QueryExtension(databaseOf(host), issueStatesOf(host), host.settings.app_url),
};
