import { observeStatements } from "../sqlite/observedStatements.ts";
import type { SqliteConnection, SqliteStatement } from "../sqlite/sqliteConnection.ts";
import { sqliteDriver } from "../sqlite/sqliteDriver.ts";

type Method = (...args: unknown[]) => unknown;

/**
 * node:sqlite's `DatabaseSync` (Node.js 22.13 and later). Its statements do not name their
 * connection, so the connection's `prepare` and `exec` are given methods of their own in front of
 * node:sqlite's: every statement prepared once livecmd opened the database runs observed (one
 * prepared before is not). Whether a transaction is open it tells from Node.js 22.16 and 24
 * (`isTransaction`); before, only `ctx.db`'s are known, and a write made through the handle in a
 * transaction the app began is reported at once rather than at its commit (safe: a rolled-back
 * entry makes every subscription re-run once).
 */
export const nodeSqlite = sqliteDriver({
  name: "node:sqlite",
  accepts: (handle) =>
    typeof handle === "object" &&
    handle !== null &&
    (handle as object).constructor?.name === "DatabaseSync",
  inTransaction(handle) {
    const flag = (handle as { isTransaction?: unknown }).isTransaction;
    return typeof flag === "boolean" ? flag : undefined;
  },
  observe(handle, statements) {
    const methods = handle as unknown as Record<string, Method>;
    const prepare = methods.prepare!.bind(handle);
    const exec = methods.exec!.bind(handle);
    methods.prepare = (sql: unknown, ...options: unknown[]) => {
      const statement = prepare(sql, ...options) as object;
      const home = { sql: String(sql), statements };
      observeStatements(statement, () => home, false);
      return statement;
    };
    methods.exec = (sql: unknown) => statements.unplanned(() => exec(sql));
    return { prepare: prepare as (sql: string) => SqliteStatement } satisfies SqliteConnection;
  },
});
