/**
 * What livecmd uses of the SQLite connection the app opens and hands over: a better-sqlite3 (v12)
 * `Database`, or a node:sqlite `DatabaseSync` (Node.js 22.13 and later). Written out rather than
 * imported, so that livecmd's published types need neither's types in an app that never uses
 * SQLite. Both bind parameters alike (every JS number as a real, a bigint as an integer:
 * `sqliteKeys.ts`), so nothing here tells them apart; they differ in their errors (`changeLog.ts`).
 */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/** Parameters are positional values, or one object of named ones (`@name`, `:name`, `$name`). */
export interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  /** node:sqlite counts `changes` in a bigint when the connection reads integers as bigints. */
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
}

/** Each driver's switch for one statement's integers: node:sqlite's, better-sqlite3's. */
interface IntegerSwitch {
  setReadBigInts?(enabled: boolean): void;
  safeIntegers?(enabled: boolean): void;
}

/**
 * The connection as livecmd's own statements use it (EXPLAIN, pragmas, the schema, the change
 * log): they read integers as numbers whatever the app chose for its own (node:sqlite's
 * `readBigInts`, better-sqlite3's `defaultSafeIntegers`), so every statement turns bigints off.
 */
export function readingNumbers(connection: SqliteConnection): SqliteConnection {
  return {
    prepare(sql) {
      const statement = connection.prepare(sql) as SqliteStatement & IntegerSwitch;
      statement.setReadBigInts?.(false);
      statement.safeIntegers?.(false);
      return statement;
    },
  };
}
