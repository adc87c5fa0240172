import type { Database } from "../database.ts";
import type { Dialect } from "../dialect.ts";
import { ChangeLog } from "./changes/changeLog.ts";
import { planStatement, type StatementPlan } from "./plan/planStatement.ts";
import { SqliteSpentConfirmations } from "./spentConfirmations.ts";
import type { SqliteConnection } from "./sqliteConnection.ts";
import { keyText } from "./sqliteKeys.ts";
import type { SqliteSchema } from "./sqliteSchema.ts";

/** What SQLite's duties are done on: the connection livecmd's own statements use, and its schema as read. */
export interface SqliteEngine {
  readonly connection: SqliteConnection;
  readonly schema: SqliteSchema;
}

/** A database on a SQLite file, and whether the file keeps spent confirmations (not a read-only one). */
export interface SqliteFile {
  readonly database: Database;
  readonly keepsSpent: boolean;
}

export type SqliteDialect = Dialect<
  (engine: SqliteEngine, sql: string) => StatementPlan,
  (engine: SqliteEngine, options: { inTransaction: boolean }) => ChangeLog | undefined,
  SqliteFile
>;

/**
 * SQLite: a statement's reads from its program (`EXPLAIN`), at once on the connection; the rows
 * every write changed from the change log its triggers keep in the file, whoever wrote; sessions
 * are one process's own, and spent confirmations are kept in the file.
 */
export const sqliteDialect: SqliteDialect = {
  name: "SQLite",
  planReads: ({ connection, schema }, sql) => planStatement(connection, schema, sql),
  openChanges: ({ connection, schema }, { inTransaction }) =>
    ChangeLog.open(connection, schema, { inTransaction }),
  keyText,
  sharedState: ({ database, keepsSpent }) => ({
    sessions: undefined,
    spentConfirmations: keepsSpent ? new SqliteSpentConfirmations(database) : undefined,
  }),
};
