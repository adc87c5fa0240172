import type { TableChange } from "../keyedAccess.ts";
import type { Dialect } from "../dialect.ts";
import type { ChangeListener } from "./changes/changeListener.ts";
import type { PgClient, PgPool } from "./pgLibrary.ts";
import type { ExplainOptions, PlannedAccess } from "./plan/planTables.ts";
import { PostgresSessionStore, type SharedOn } from "./sessions/sessionStore.ts";
import { PostgresSpentConfirmations } from "./sessions/spentConfirmations.ts";

export type PostgresDialect = Dialect<
  (
    client: PgClient,
    text: string,
    options: ExplainOptions,
    inTransaction: boolean,
  ) => Promise<PlannedAccess>,
  (
    pool: () => PgPool,
    changed: (changes: readonly TableChange[]) => void,
    log: (line: string) => void,
    hearsFeed: boolean,
  ) => Promise<ChangeListener>,
  SharedOn
>;

/**
 * PostgreSQL, its changes captured by triggers that NOTIFY (`changes/changeFeed.ts`), heard on
 * one LISTEN connection: a statement's reads from its generic plan, asked of the server; the
 * 2025-era sessions and spent confirmations in livecmd's tables, shared by every process
 * serving the database. Its planner and change feed load when first used (`loadedOnOpen.ts`).
 */
export const postgresDialect: PostgresDialect = {
  name: "PostgreSQL",
  planReads: async (client, text, options, inTransaction) =>
    (await import("./loadedOnOpen.ts")).explainStatement(client, text, options, inTransaction),
  openChanges: async (pool, changed, log, hearsFeed) =>
    new (await import("./loadedOnOpen.ts")).ChangeListener(pool, changed, log, hearsFeed),
  /**
   * A key as a SQL literal: the change feed's text of any key type (integer, uuid, text) reads
   * back as the column's value in single quotes (`id = '7'`).
   */
  keyText: (key) => `'${key.replaceAll("'", "''")}'`,
  sharedState: (database) => ({
    sessions: new PostgresSessionStore(database),
    spentConfirmations: new PostgresSpentConfirmations(() => database),
  }),
};
