import type { DatabaseDriver } from "../driver.ts";
import type { SqliteConnection } from "./sqliteConnection.ts";
import { SqliteDatabase } from "./sqliteDatabase.ts";
import type { SqliteLibrary } from "./sqliteLibrary.ts";

/** The driver of the SQLite connections of one library. */
export function sqliteDriver(library: SqliteLibrary): DatabaseDriver {
  return {
    name: library.name,
    ...(library.loadProblem && { loadProblem: (from: string) => library.loadProblem!(from) }),
    accepts: (handle) => library.accepts(handle),
    open: (handle, owner) =>
      new SqliteDatabase(handle as SqliteConnection, owner.changed, library, owner.runs),
  };
}
