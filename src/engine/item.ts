// What flows through a pipeline: one item per event, span or replay chunk, with the tenant it
// belongs to and, once a processor has decided, its outcome.
import type { ErrorEvent, ProcessingError } from '../records/event.js';
import type { ReplaySegment } from '../records/replay.js';
import type { Span } from '../records/span.js';

export type Signal = 'events' | 'traces' | 'replays';
export const SIGNALS: readonly Signal[] = ['events', 'traces', 'replays'];

/** `live` for keys with the fl_live_ prefix, `test` for fl_test_: the two never mix. */
export type Dataset = 'live' | 'test';

export interface Tenant {
  orgId: string;
  projectId: string;
  dataset: Dataset;
}

export interface FieldError {
  path: string;
  message: string;
}

export type Outcome = { kind: 'dropped'; reason: string } | { kind: 'rejected'; code: string; message: string; details: FieldError[] };

export interface Item<T = unknown> {
  data: T;
  tenant: Tenant;
  /** Epoch milliseconds at which the receiver took the item in. */
  receivedAt: number;
  /** Approximate size in bytes, charged against the pipeline's in-flight budget. */
  size: number;
  /**
   * Events: what the receiver had to change or leave out while turning the sender's format into
   * the ingest body (a Sentry payload's field it could not map); the validation processor puts
   * them first in the event's `processing_errors`.
   */
  notes?: ProcessingError[];
  /** Unset while the item is live; set once a processor drops or rejects it. */
  outcome?: Outcome;
}

/**
 * The record each signal's items carry once validated (the `validated` fact: see the factories'
 * `requires`). Before that, an item's data is what the receiver took in.
 */
export interface SignalRecords {
  events: ErrorEvent;
  traces: Span;
  replays: ReplaySegment;
}

export type RecordItem<S extends Signal> = Item<SignalRecords[S]>;

/** An exporter's batch as a union a `switch (batch.signal)` narrows, items typed by their signal. */
export type SignalBatch = { [S in Signal]: { signal: S; items: RecordItem<S>[] } }[Signal];

/**
 * The items of a component that requires `validated` on this signal, typed by their record.
 * The check is the one resolve.ts makes at load (the validation processor comes earlier), not one
 * at run time: this names the type instead of a cast at every use.
 */
export function recordItems<S extends Signal>(_signal: S, items: Item[]): RecordItem<S>[] {
  return items as RecordItem<S>[];
}

/** `(signal, items)` as an exporter gets them, as a SignalBatch (same trust as recordItems). */
export function signalBatch(signal: Signal, items: Item[]): SignalBatch {
  return { signal, items } as SignalBatch;
}

export function drop(item: Item, reason: string): void {
  item.outcome = { kind: 'dropped', reason };
}

export function reject(item: Item, message: string, details: FieldError[] = [], code = 'validation_failed'): void {
  item.outcome = { kind: 'rejected', code, message, details };
}

export function isLive(item: Item): boolean {
  return item.outcome === undefined;
}
