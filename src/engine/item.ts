// What flows through a pipeline: one item per event, span or replay chunk, with the tenant it
// belongs to and, once a processor has decided, its outcome.

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

export type Outcome =
  | { kind: 'dropped'; reason: string }
  | { kind: 'rejected'; code: string; message: string; details: FieldError[] };

export interface Item<T = unknown> {
  data: T;
  tenant: Tenant;
  /** Epoch milliseconds at which the receiver took the item in. */
  receivedAt: number;
  /** Approximate size in bytes, charged against the pipeline's in-flight budget. */
  size: number;
  /** Unset while the item is live; set once a processor drops or rejects it. */
  outcome?: Outcome;
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
