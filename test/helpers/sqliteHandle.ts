import type BetterSqlite3 from "better-sqlite3";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import { SqliteDatabase } from "../../packages/livecmd/runtime/db/sqlite/sqliteDatabase.ts";

/**
 * The better-sqlite3 Database behind an app's `db`, for tests that read the tables directly.
 * livecmd types it structurally (`SqliteConnection`); these apps all open better-sqlite3 v12.
 */
export function sqliteHandle(app: App): BetterSqlite3.Database {
  const db = app.db;
  if (!(db instanceof SqliteDatabase)) throw new Error("sqliteHandle: the app is not on SQLite");
  return db.connection as BetterSqlite3.Database;
}
