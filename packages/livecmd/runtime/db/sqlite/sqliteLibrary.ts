import type { SqliteConnection } from "./sqliteConnection.ts";

/**
 * What the SQLite engine (this folder) needs of the library an app's connection comes from:
 * better-sqlite3 (`db/better-sqlite3/`) and node:sqlite (`db/node-sqlite/`) differ only here.
 */
export interface SqliteLibrary {
  readonly name: string;
  /** What would stop the library from loading in this process (`DatabaseDriver.loadProblem`). */
  loadProblem?(from: string): string | undefined;
  /** Whether `handle` is one of its connections. */
  accepts(handle: unknown): boolean;
  /** Whether a transaction is open on the connection; undefined when the library cannot tell. */
  inTransaction(handle: SqliteConnection): boolean | undefined;
  /**
   * Routes every statement the app runs through `handle` from now on to `statements`, and
   * returns the connection as livecmd prepares its own statements (and `ctx.db`'s), unobserved.
   */
  observe(handle: SqliteConnection, statements: HandleStatements): SqliteConnection;
}

/** What the engine does with each statement the app runs through its own handle. */
export interface HandleStatements {
  /**
   * Runs `execute`, which runs statement `sql` bound to `params` (positional values, or one
   * object of named ones), as `ctx.db` runs its own: for the run it belongs to, cancelled when
   * that run is, its reads reported before and what it wrote after.
   */
  statement<T>(sql: string, params: readonly unknown[], execute: () => T): T;
  /**
   * Runs `execute`, SQL that livecmd does not plan (a script through `exec`, a library's own
   * transaction), and reports what it wrote once it ran. It returns no rows, so it reads nothing
   * a run's result could depend on.
   */
  unplanned<T>(execute: () => T): T;
}
