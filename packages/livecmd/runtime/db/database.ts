import type { ChangeInterest } from "./changeInterest.ts";
import type { KeyValue, TableRead } from "./keyedAccess.ts";
import type { SessionStore, StoredSpentConfirmations } from "./sharedState.ts";

export type SqlParam = string | number | bigint | boolean | null | Buffer;

/** What `run` tells of a write. */
export interface RunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
  /**
   * SQLite only: the rowid of the last row inserted on the connection. PostgreSQL has no such
   * thing; write `INSERT ... RETURNING id` with `get` (SQLite 3.35 and later take it too).
   */
  lastInsertRowid?: number | bigint;
}

/**
 * The database as a handler sees it, the same on SQLite and PostgreSQL, so that the runtime sees
 * which tables every statement reads (live subscriptions re-run on writes to those). Every method
 * returns a promise on both drivers; on SQLite it is already settled when returned.
 *
 * Parameters are `?` placeholders on both; on PostgreSQL a statement may use `$1` instead (and
 * then its `?` are left alone, for jsonb's `?` operators).
 */
export interface Database {
  all<T = Record<string, unknown>>(sql: string, ...params: SqlParam[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, ...params: SqlParam[]): Promise<T | undefined>;
  run(sql: string, ...params: SqlParam[]): Promise<RunResult>;
  /**
   * Runs `fn` in one transaction: it commits when `fn`'s promise resolves and rolls back when it
   * rejects. Every statement made through the app's database from within `fn` (awaited or not)
   * is part of it, and no other command's statement runs inside it; a transaction within a
   * transaction is a savepoint.
   */
  transaction<T>(fn: () => Promise<T> | T): Promise<T>;
}

/**
 * Told what each statement read. (What writes change is told to the database's opener: it comes
 * from the database itself, which sees every writer, triggers and cascades.)
 */
export interface TableObserver {
  /** Absent when nobody asks what a run read (then PostgreSQL explains nothing). */
  read?(reads: readonly TableRead[]): void;
  /**
   * Reads told by `read` before their statement ran (`told`, those same objects), narrower now
   * that it ran (`reads`: a PostgreSQL page, bounded by its last returned row). Changes heard in
   * between were matched against `told`. Absent: a page's reads are never narrowed.
   */
  narrowed?(told: readonly TableRead[], reads: readonly TableRead[]): void;
  /**
   * Only which tables are read is wanted: each is reported whole, with no keys or filters bound
   * and no values looked up (table-level matching).
   */
  tablesOnly?: boolean;
  /**
   * The run's cancellation (`ctx.signal`): once it fires, no statement starts (it throws the
   * signal's reason), and PostgreSQL cancels the one running.
   */
  signal?: AbortSignal;
  /** The command the run is of, as a line on the log about the run names it. */
  command?: string;
}

/**
 * A database the app holds, as its driver opened it (`driver.ts`): views of it report to one
 * observer each (one per command run), and the runtime asks it what depends on the driver.
 */
export interface AppDatabase extends Database {
  observedBy(observer: TableObserver): Database;
  /**
   * Why this process should not be sent requests although its database answers (on PostgreSQL:
   * its change feed is not heard, so other processes' writes would not reach its subscriptions).
   */
  servingProblem(): string | undefined;
  /**
   * Where the 2025-era sessions of every process serving this database are kept, when several
   * may (PostgreSQL); undefined when this process is the only one (SQLite).
   */
  sharedSessions(): SessionStore | undefined;
  /**
   * Where the 2026-era confirmations accepted by every process serving this database are
   * recorded, so that each is spent once, also after a restart (PostgreSQL's table, the SQLite
   * file's); undefined when the database cannot keep them (a read-only SQLite file).
   */
  spentConfirmations(): StoredSpentConfirmations | undefined;
  /** A key value as `livecmd inspect --reads` prints it. */
  keyText(key: KeyValue): string;
  /**
   * The connection livecmd watches the app's own statements through, as a line names it (`the
   * better-sqlite3 connection to notes.sqlite`): said of a live command whose run made none there.
   */
  handleText(): string;
  /**
   * How the database captures its changes, and why, as the start-up log says it; absent where
   * there is one way (SQLite's change log), undefined before the database is open.
   */
  captureText?(): string | undefined;
  /**
   * Resolves once every write committed before the call has been reported as changed (on
   * PostgreSQL the change feed's notifications arrive after the commit; on SQLite once the log
   * is read, a page a turn: at once for most writes).
   */
  caughtUp(): Promise<void>;
  /**
   * Settles once every change committed from now on is heard (on PostgreSQL: connected, set up,
   * the change feed listened to; on SQLite at once, the log being read from the open); rejects
   * with why it cannot be. A run whose reads are watched starts after it (`AppEngine.run`).
   */
  hearing(): Promise<void>;
  /**
   * What brings this process only the changes to what it watches, told each run's reads
   * (PostgreSQL on a bus); absent where every change reaches every process.
   */
  changeInterest?(): ChangeInterest | undefined;
  /** Ends the connections (tests, and shutdown); the database cannot be used afterwards. */
  close(): Promise<void>;
}
