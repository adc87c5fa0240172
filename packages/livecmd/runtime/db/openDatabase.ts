import type { AppDatabase } from "./database.ts";
import type { TableChange } from "./keyedAccess.ts";
import type { PostgresSource } from "./postgres/postgres.ts";
import type { SqliteConnection } from "./sqlite/sqliteConnection.ts";
import { SqliteDatabase } from "./sqlite/sqliteDatabase.ts";
import { sqliteDriverProblem } from "./sqlite/sqliteDriver.ts";

/** What `defineApp({ database })` takes: a function that opens SQLite, or `postgres(...)`. */
export type DatabaseSource = (() => SqliteConnection) | PostgresSource;

/**
 * Opens the app's database. `changed` is told the tables every committed write changed: on
 * SQLite the writes made through this database, on PostgreSQL every write from anywhere.
 */
export function openDatabase(
  source: DatabaseSource,
  changed: (changes: readonly TableChange[]) => void,
): AppDatabase {
  if (typeof source !== "function") return source.open(changed);
  const driverProblem = sqliteDriverProblem(`${process.cwd()}/`);
  if (driverProblem) throw new Error(`livecmd: ${driverProblem}`);
  return new SqliteDatabase(source(), changed);
}
