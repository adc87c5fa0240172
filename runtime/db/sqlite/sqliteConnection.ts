/**
 * What livecmd uses of a better-sqlite3 (v12) `Database`, which the app opens and hands over.
 * Written out rather than imported, so that livecmd's published types need no better-sqlite3
 * types in an app that never uses SQLite.
 */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/** Parameters are positional values, or one object of named ones (`@name`, `:name`, `$name`). */
export interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}
