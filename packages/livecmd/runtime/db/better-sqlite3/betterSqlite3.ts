import { observeStatements, type StatementHome } from "../sqlite/observedStatements.ts";
import type { SqliteConnection } from "../sqlite/sqliteConnection.ts";
import { sqliteDriver } from "../sqlite/sqliteDriver.ts";
import type { HandleStatements } from "../sqlite/sqliteLibrary.ts";
import { sqliteDriverProblem } from "./versionProblem.ts";

/** What better-sqlite3 tells of every statement: the SQL it was prepared from, and its connection. */
interface Statement {
  readonly source: string;
  readonly database: object;
}

/** Each connection livecmd observes: its engine, and the statements livecmd prepares on it itself. */
const observed = new WeakMap<object, { statements: HandleStatements; own: WeakSet<object> }>();
/** The statement classes already observed (one per copy of better-sqlite3 in the process). */
const observedClasses = new WeakSet<object>();

function homeOf(statement: object): StatementHome | undefined {
  const { source, database } = statement as Statement;
  const connection = observed.get(database);
  return connection && !connection.own.has(statement)
    ? { sql: source, statements: connection.statements }
    : undefined;
}

/**
 * better-sqlite3 (v12) `Database`s, and connections of libraries that copy its API: anything
 * with `prepare` that no other SQLite driver claims. Its statements name their connection, so
 * they are observed through their class, for the connections livecmd was given: a statement
 * prepared before livecmd opened the database (a Drizzle `.prepare()` at module level) is
 * observed too. An array of parameters stands for its elements (`all([1, 2])`, as Kysely calls),
 * and `bind` keeps parameters for later runs (as Prisma's adapter does). `db.transaction(fn)`,
 * whose BEGIN and COMMIT better-sqlite3 runs past its statements, is reported at its end by the
 * engine (`Connection.wrote`).
 */
export const betterSqlite3 = sqliteDriver({
  name: "better-sqlite3",
  loadProblem: sqliteDriverProblem,
  accepts: (handle) =>
    typeof handle === "object" &&
    handle !== null &&
    typeof (handle as { prepare?: unknown }).prepare === "function",
  inTransaction(handle) {
    const flag = (handle as { inTransaction?: unknown }).inTransaction;
    return typeof flag === "boolean" ? flag : undefined;
  },
  observe(handle, statements) {
    const own = new WeakSet<object>();
    const unobserved: SqliteConnection = {
      prepare(sql) {
        const statement = handle.prepare(sql);
        own.add(statement);
        return statement;
      },
    };
    const probe = unobserved.prepare("SELECT 1") as unknown as Statement;
    // A look-alike whose statements do not name their connection: only ctx.db's are observed.
    if (typeof probe.source !== "string" || probe.database !== handle) return unobserved;
    observed.set(handle, { statements, own });
    const statementClass = Object.getPrototypeOf(probe) as object;
    if (!observedClasses.has(statementClass)) {
      observedClasses.add(statementClass);
      observeStatements(statementClass, homeOf, true);
    }
    observeExec(handle, statements);
    return unobserved;
  },
});

/** `exec` runs a script of statements past `prepare`: what it wrote is reported after it. */
function observeExec(handle: SqliteConnection, statements: HandleStatements): void {
  const methods = handle as unknown as Record<string, unknown>;
  const exec = methods.exec;
  if (typeof exec !== "function") return;
  methods.exec = (sql: unknown) =>
    statements.unplanned(() => (exec as (sql: unknown) => unknown).call(handle, sql));
}
