// The service's DuckDB database file: the tables of the extensions and of the exporters that keep
// theirs here (each runs its own migrations when it starts, see migrate.ts). DuckDB takes one writing process per
// file and, inside it, conflicting writes from two connections fail; so every write in the process
// goes through one queue on one connection, while reads use their own connections.
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Journal, JournalChange } from './journal.js';
import { makePrivateDir, makePrivateFiles } from './private-files.js';

export class DatabaseLockedError extends Error {
  constructor(path: string, cause: unknown) {
    super(`${path} is in use by another process (is the service running?)`, { cause });
    this.name = 'DatabaseLockedError';
  }
}

export class DatabaseCorruptError extends Error {
  constructor(path: string, cause: unknown) {
    super(
      `${path} is damaged and cannot be opened (${(cause as Error).message}). Restore it (and its .wal file, if any) from a backup ` +
        'taken together with the docs/ directory beside it, or move it aside to start with an empty catalog and tables.',
      { cause },
    );
    this.name = 'DatabaseCorruptError';
  }
}

export class Database {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly readers: DuckDBConnection[] = [];
  private nextReader = 0;
  /** Set by the shared control plane: where changes to replicate are recorded. */
  journal?: Journal;
  /** Whether the open transaction recorded changes into the journal. */
  private journaled = false;

  private constructor(
    readonly path: string,
    /** The directory the file is in, where exporters keep what they store beside it. */
    readonly dataDir: string,
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
  ) {}

  static async open(dataDir: string, readers = 2): Promise<Database> {
    makePrivateDir(dataDir);
    const path = join(dataDir, 'faultline.duckdb');
    let instance: DuckDBInstance | undefined;
    try {
      instance = await DuckDBInstance.create(path);
      const writer = await instance.connect();
      const db = new Database(path, dataDir, instance, writer);
      for (let i = 0; i < readers; i++) db.readers.push(await instance.connect());
      makePrivateFiles(dataDir, /^faultline\.duckdb/);
      return db;
    } catch (error) {
      try {
        instance?.closeSync();
      } catch {
        // the first error is the one to report
      }
      const message = String((error as Error).message);
      // DuckDB's own words: "Could not set lock on file … Conflicting lock is held in …".
      if (/could not set lock|conflicting lock/i.test(message)) throw new DatabaseLockedError(path, error);
      if (/not a valid DuckDB database|corrupt|checksum|failed to (read|deserialize)|serializ/i.test(message)) throw new DatabaseCorruptError(path, error);
      throw error;
    }
  }

  /** Runs `work` alone on the writer connection, inside a transaction that commits when it returns. */
  write<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.writeInOwnTransaction(async (connection) => {
      await connection.run('BEGIN TRANSACTION');
      const result = await work(connection);
      await connection.run('COMMIT');
      if (this.journaled) {
        this.journaled = false;
        this.journal?.committed();
      }
      return result;
    });
  }

  /**
   * Records a change for the shared control plane inside the caller's write transaction (a no-op
   * without one): it commits, or rolls back, with the change itself.
   */
  async recordChange<C extends JournalChange>(connection: DuckDBConnection, change: C): Promise<void> {
    if (!this.journal) return;
    await this.journal.record(connection, change);
    this.journaled = true;
  }

  /**
   * Like write, but `work` begins and commits the transaction itself, so it can fold BEGIN and
   * COMMIT into its own statements: under load every round trip to DuckDB's threads waits behind
   * the HTTP work on the event loop. On an error the transaction is rolled back.
   */
  writeInOwnTransaction<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const run = async () => {
      try {
        return await work(this.writer);
      } catch (error) {
        this.journaled = false;
        await this.writer.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** A connection for reads, round-robin over a small pool. */
  reader(): DuckDBConnection {
    const connection = this.readers[this.nextReader];
    this.nextReader = (this.nextReader + 1) % this.readers.length;
    return connection;
  }

  async close(): Promise<void> {
    await this.tail;
    await this.writer.run('CHECKPOINT').catch(() => undefined);
    for (const connection of [...this.readers, this.writer]) connection.closeSync();
    this.instance.closeSync();
  }
}
