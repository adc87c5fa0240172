import type { SqliteConnection } from "../../packages/livecmd/runtime/db/sqlite/sqliteConnection.ts";

/** What the tests use of a SQLite connection: the same on better-sqlite3 and node:sqlite. */
export interface TestConnection extends SqliteConnection {
  exec(sql: string): void;
  close(): void;
}

export interface OpenOptions {
  readOnly?: boolean;
  /** Read integers as bigints (node:sqlite's `readBigInts`, better-sqlite3's `defaultSafeIntegers`). */
  bigInts?: boolean;
}

/** A SQLite driver an app can hand livecmd, or why this Node.js cannot run it. */
export interface SqliteDriver {
  readonly name: "better-sqlite3" | "node:sqlite";
  /** Set when the driver cannot load here: the tests of it skip, with this reason. */
  readonly skip?: string;
  open(file: string, options?: OpenOptions): TestConnection;
}

type Open = SqliteDriver["open"];

function driver(name: SqliteDriver["name"], load: () => Promise<Open>): Promise<SqliteDriver> {
  return load().then(
    (open) => ({ name, open }),
    (error: Error) => ({
      name,
      skip: `${name} cannot load on Node.js ${process.version}: ${error.message.replace(/\s+/g, " ")}`,
      open: () => {
        throw error;
      },
    }),
  );
}

/**
 * better-sqlite3 is imported lazily and tried once: its native binary is built for one Node.js
 * ABI (the machine's), so on another Node.js its tests skip while node:sqlite's run.
 */
async function betterSqlite3(): Promise<Open> {
  const { default: Database } = await import("better-sqlite3");
  new Database(":memory:").close();
  return (file, { readOnly = false, bigInts = false } = {}) =>
    new Database(file, { readonly: readOnly }).defaultSafeIntegers(bigInts);
}

/** A variable, not a literal: @types/node 20 declares no node:sqlite module. */
const NODE_SQLITE = "node:sqlite";

async function nodeSqlite(): Promise<Open> {
  const { DatabaseSync } = (await import(NODE_SQLITE)) as {
    DatabaseSync: new (
      file: string,
      options: { readOnly: boolean; readBigInts: boolean },
    ) => TestConnection;
  };
  return (file, { readOnly = false, bigInts = false } = {}) =>
    new DatabaseSync(file, { readOnly, readBigInts: bigInts });
}

/** Every driver, each with `skip` set where this Node.js lacks it (node:sqlite before 22.13). */
export const SQLITE_DRIVERS: readonly SqliteDriver[] = await Promise.all([
  driver("better-sqlite3", betterSqlite3),
  driver("node:sqlite", nodeSqlite),
]);

/** The value of a pragma that answers one column, such as `busy_timeout`. */
export function pragma(connection: SqliteConnection, name: string): unknown {
  return Object.values(connection.prepare(`PRAGMA ${name}`).get() as object)[0];
}
