// The corpus's line format: `{"category", "bug", "event"}`, the event being the body a client
// POSTs to /v1/events (src/records/event-schema.ts), with `exception.cause` for chained exceptions.

export interface CorpusFrame {
  function?: string;
  module?: string;
  filename?: string;
  abs_path?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  platform?: string;
  instruction_addr?: string;
}

export interface CorpusException {
  type: string;
  value: string;
  module?: string;
  /** Oldest call first, the crashing frame last. */
  stacktrace?: CorpusFrame[];
  /** The exception this one was raised from (Java's `getCause()`, Python's `raise … from`, JS `Error.cause`). */
  cause?: CorpusException;
}

export interface CorpusEvent {
  timestamp: string;
  environment: string;
  release: string;
  level?: 'fatal' | 'error' | 'warning' | 'info';
  platform: string;
  message?: string;
  exception: CorpusException;
  fingerprint?: string[];
  tags?: Record<string, string>;
}

export interface CorpusEntry {
  category: string;
  /** The label: events with the same `bug` are occurrences of one defect, by construction. */
  bug: string;
  event: CorpusEvent;
}

export interface Category {
  name: string;
  /** What the category exercises (printed by the evaluator and the README). */
  description: string;
  build(): CorpusEntry[];
}
