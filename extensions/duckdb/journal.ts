// The database's change journal: stores record every change another node must learn of inside
// the transaction that makes it (Database.recordChange), and the control-plane extension, when it
// runs, is the journal that keeps and sends them. Deleted rows of replicated tables leave a marker
// here (control_tombstones), so an older change arriving after the deletion cannot bring one back;
// the stores keep those markers whether or not a control plane runs.
import type { DuckDBConnection } from '@duckdb/node-api';

/** A change as a store hands it over; `kind` says which store's (the control plane knows each). */
export interface JournalChange {
  kind: string;
}

/**
 * A row a component keeps in tables of its own (the monitors receiver's monitors): `type` names
 * the applier the component registered (Journal.onComponentChange), `id` the row within it; `body`
 * is the row's full state, or absent for a deletion, at `at` (epoch ms).
 */
export type ComponentChange = { kind: 'component'; type: string; id: string; at: number; body?: Record<string, unknown> };

/** Where changes go: the control plane's outbox table, written in the caller's transaction. */
export interface Journal {
  record(connection: DuckDBConnection, change: JournalChange): Promise<void>;
  /** After a transaction that recorded changes committed: they may be sent. */
  committed(): void;
  /**
   * Applies the changes of a component's `type`, from the topic and from any received before this
   * call, in order (a component registers when it starts, after the control plane does).
   */
  onComponentChange?(type: string, apply: (change: ComponentChange) => Promise<void>): void;
}

/** When the row of `key` was deleted (epoch ms), if it was: a change older than that is stale. */
export async function deletedAt(connection: DuckDBConnection, key: string): Promise<number | undefined> {
  const result = await connection.runAndReadAll('SELECT deleted_at FROM control_tombstones WHERE key = ?', [key]);
  const at = result.getRows()[0]?.[0];
  return at === undefined || at === null ? undefined : Number(at);
}

/** Marks the row of `key` deleted at `at` (the later of two deletions stays). */
export async function markDeleted(connection: DuckDBConnection, key: string, at: number): Promise<void> {
  await connection.run(
    'INSERT INTO control_tombstones VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET deleted_at = greatest(control_tombstones.deleted_at, excluded.deleted_at)',
    [key, at],
  );
}
