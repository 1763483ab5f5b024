// The canonical error-event record: what the validation processor produces, what the grouping
// processor enriches, what exporters persist and what the read endpoints return.

import type { ScrubbedPath } from './data-scrubbing.js';

export type Level = 'fatal' | 'error' | 'warning' | 'info' | 'debug';
export const LEVELS: readonly Level[] = ['fatal', 'error', 'warning', 'info', 'debug'];

export interface StackFrame {
  filename?: string;
  abs_path?: string;
  module?: string;
  function?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  platform?: string;
  context_line?: string;
  pre_context?: string[];
  post_context?: string[];
  /** The build this frame's file belongs to (a debug id injected by a bundler plugin or sentry-cli). */
  debug_id?: string;
  /** Native frames: the absolute address of the instruction (hex string, `0x…`). */
  instruction_addr?: string;
}

export interface ExceptionInfo {
  type: string;
  value: string;
  module?: string;
  /** Frames ordered oldest call first, the crashing frame last (Sentry's convention). */
  stacktrace?: StackFrame[];
  /** How it was caught (Sentry's `mechanism`: `type`, `handled`, …), as sent. */
  mechanism?: Record<string, unknown>;
  /** The exception this one wraps, recursively: the raised exception outermost, the root cause innermost. */
  cause?: ExceptionInfo;
  /** A cause's frames as received, when symbolication changed them (the raised exception's are the event's `raw_stacktrace`). */
  raw_stacktrace?: StackFrame[];
}

export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
}

export interface Breadcrumb {
  timestamp?: string;
  type?: string;
  category?: string;
  message?: string;
  level?: Level;
  data?: Record<string, unknown>;
}

export interface EventRequest {
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  query_string?: string;
  data?: unknown;
}

export interface EventSdk {
  name?: string;
  version?: string;
}

/** A note the pipeline attaches to an event it accepted but had to change or could not fully process. */
export interface ProcessingError {
  type: string;
  path?: string;
  message: string;
}

export interface RootCause {
  type: string;
  value: string;
  frame: StackFrame | null;
  summary: string;
  /** With an `exception.cause` chain: each exception's type and value, the raised one first, the root cause last. */
  chain?: Array<{ type: string; value: string }>;
}

/** What a sender may put in an event (after validation and normalization). */
export interface ErrorEventInput {
  id: string;
  /** ISO 8601, normalized to UTC with millisecond precision. */
  timestamp: string;
  environment: string;
  release: string;
  level: Level;
  message?: string;
  platform?: string;
  exception: ExceptionInfo;
  user?: EventUser;
  tags?: Record<string, string>;
  trace_id?: string;
  replay_id?: string;
  breadcrumbs?: Breadcrumb[];
  contexts?: Record<string, unknown>;
  request?: EventRequest;
  fingerprint?: string[];
  sdk?: EventSdk;
  /** The distribution of the release (one release built several ways), as Sentry SDKs send it. */
  dist?: string;
  /** The files the frames came from, so symbolication finds their maps and symbols. */
  debug_meta?: DebugMeta;
}

/** Sentry's `debug_meta`: the images (bundles, mapping files, native modules) of the process. */
export interface DebugMeta {
  images: DebugImage[];
}

export type DebugImage =
  /** A JavaScript file and the debug id of its source map. */
  | { type: 'sourcemap'; code_file: string; debug_id: string }
  /** A ProGuard/R8 mapping file, by its UUID. */
  | { type: 'proguard'; uuid: string }
  /** A native module: where it was loaded, and the debug id of its symbols. */
  | { type: 'elf' | 'macho' | 'pe'; debug_id: string; code_file?: string; image_addr: string; image_size?: number };

/** What an event did to its issue: opened it, reopened it after it was resolved, or ended its "ignore until". */
export type IssueTransition = 'new' | 'regressed' | 'escalated';

/** The stored event: the input plus what the pipeline derived. */
export interface ErrorEvent extends ErrorEventInput {
  project_id: string;
  /** ISO 8601 time at which a receiver took the event in. */
  received_at: string;
  /** Parsed from `release` when it has the shape `<app>@<version>`. */
  release_info?: { app: string; version: string };
  issue_id?: string;
  /** The grouping hash (hex) the issue id was derived from. */
  grouping_hash?: string;
  /**
   * The id of the event's grouping hash (the issue id it derives), set when the event belongs to
   * another issue because of a merge: what stores key the event by (src/storage/issue-redirects.ts).
   */
  grouping_id?: string;
  /**
   * Set by the grouping processor while the project moves to a new grouping version: the issue the
   * previous version gives this event, which the issues processor uses when only that one exists (not stored).
   */
  grouping_fallback_issue_id?: string;
  /** Set by the issues processor on the event that opened its issue or reopened it (not stored). */
  issue_transition?: IssueTransition;
  /** Title of the issue this event belongs to, e.g. `TypeError: x is undefined`. */
  title?: string;
  /** Where it happened, e.g. `handleClick (src/app.js)`. */
  culprit?: string;
  root_cause?: RootCause;
  /** The frames as received, before symbolication. */
  raw_stacktrace?: StackFrame[];
  processing_errors: ProcessingError[];
  /** Set by the scrubbing processor: where it replaced, masked or removed something, and by which rule. */
  scrubbed?: ScrubbedPath[];
}
