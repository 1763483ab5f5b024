// The query layer's public interface: what frontends, components and other extensions import.
// Every SQL read over stored items lives behind it; the filter-to-SQL builder is filter.ts.
export { QueryExtension, queryExtensionFactory, queryOf, readSideOf, QUERY_EXTENSION_ID } from './extension.js';
export { Storage } from './storage.js';
export { decodeCursor, encodeCursor, InvalidCursorError, type Cursor } from '../../src/http/cursor.js';
export { rows } from '../duckdb/rows.js';
export { parseQuery, type ParsedQuery } from './query-syntax.js';
export { eventConditions, searchConditions, type EventConditions } from './filter.js';
export { MergedSource, type RowKey } from './read-sources.js';
export type { EventFilter, Page } from './events.js';
export { SETTABLE_STATUSES, type Issue, type IssueStatus } from './issues.js';
export { chartWindow, TAG_SAMPLE, type IssueViews } from './issue-views.js';
export { MAX_TRACE_SPANS, type TraceFilter, type TraceSummary, type SpanPage } from './traces.js';
export type { Replay, ReplayFilter, ReplayStore, ReplaySummary } from './replays.js';
export type { ReleaseDetail, ReleaseHealthSummary, ReleaseSummary } from './releases.js';
export type { WindowCounts, WindowScope } from './window-counts.js';
