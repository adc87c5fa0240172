import { SetupError } from "../setupError.ts";
import { betterSqlite3 } from "../better-sqlite3/betterSqlite3.ts";
import { missingBinaryProblem } from "../better-sqlite3/missingBinary.ts";
import type { AppDatabase } from "../database.ts";
import type { DatabaseDriver, DatabaseOwner } from "../driver.ts";
import { nodePostgres } from "../node-postgres/nodePostgres.ts";
import { nodeSqlite } from "../node-sqlite/nodeSqlite.ts";
import { prismaBetterSqlite3, type PrismaAdapterFactory } from "../prisma/prismaBetterSqlite3.ts";
import type { PostgresSource } from "../node-postgres/postgres.ts";
import type { SqliteConnection } from "../sqlite/sqliteConnection.ts";

/**
 * Every driver, asked in this order whether a handle is theirs: adding one is its folder under
 * db/ and a line here.
 */
const DRIVERS: readonly DatabaseDriver[] = [
  nodeSqlite,
  prismaBetterSqlite3,
  betterSqlite3,
  nodePostgres,
];

/**
 * What `defineApp({ database })` takes: a function that returns the app's SQLite connection (the
 * very one it gives Drizzle, Kysely or its own code), `postgres(...)` (with the app's own
 * `pg.Pool` for Drizzle, Kysely or Prisma's `PrismaPg`), or the adapter the app gives Prisma on
 * SQLite (`prisma(new PrismaBetterSqlite3({ url }))`).
 */
export type DatabaseSource = (() => SqliteConnection) | PostgresSource | PrismaAdapterFactory;

/**
 * Opens `owner`'s database with the driver whose handle it is. `owner.changed` is told what
 * every committed write changed: on SQLite every write to the file, on PostgreSQL every write
 * from anywhere.
 */
export function openDatabase(source: DatabaseSource, owner: DatabaseOwner): AppDatabase {
  const handle = typeof source === "function" ? opened(source) : source;
  const driver = DRIVERS.find((each) => each.accepts(handle));
  if (!driver)
    throw new SetupError(
      `livecmd: defineApp({ database }) got ${describe(handle)}, which no driver opens: give a function that returns the app's SQLite connection (better-sqlite3 or node:sqlite), postgres(url, pg.Pool or pg.Client), or Prisma's PrismaBetterSqlite3 adapter`,
    );
  return driver.open(handle, owner);
}

/** The handle the app's database function returns, once nothing stops a driver from loading here. */
function opened(source: () => unknown): unknown {
  for (const driver of DRIVERS) {
    const problem = driver.loadProblem?.(`${process.cwd()}/`);
    if (problem) throw new Error(`livecmd: ${problem}`);
  }
  try {
    return source();
  } catch (error) {
    const missingBinary = missingBinaryProblem(error);
    throw missingBinary ? new SetupError(`livecmd: ${missingBinary}`, { cause: error }) : error;
  }
}

function describe(handle: unknown): string {
  if (handle === null || typeof handle !== "object") return String(handle);
  return `a ${(handle as object).constructor?.name ?? "object"}`;
}
