import type { Database } from "../database.ts";
import type { StoredSpentConfirmations } from "../sharedState.ts";
import { isReadOnly } from "./changes/changeLog.ts";
import type { SqliteConnection } from "./sqliteConnection.ts";
import { quoteName, SPENT_CONFIRMATIONS_TABLE } from "./sqliteSchema.ts";

const SPENT = quoteName(SPENT_CONFIRMATIONS_TABLE);

/**
 * Creates the table of spent confirmations in the file if need be, beside the change log (before
 * the log reads the schema, so that a new table is no change of the app's); false when the
 * connection cannot write it (a read-only file), and they are kept in memory.
 */
export function createSpentTable(connection: SqliteConnection): boolean {
  try {
    connection
      .prepare(
        `CREATE TABLE IF NOT EXISTS ${SPENT} (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
      )
      .run();
    return true;
  } catch (error) {
    if (isReadOnly(error)) return false;
    throw error;
  }
}

/**
 * The accepted confirmations of every process serving one SQLite file
 * (`server/policy/spentConfirmations.ts`), in the file: one row per spent `requestState` id,
 * until it expires. The insert is the check, and SQLite lets one writer at a time into the file,
 * so two processes given the same yes run it once, and a restarted one still refuses it. Its
 * statements go through the app's database as a statement of no run does: a `ctx.db` transaction
 * another command holds open is waited for, never joined (its rollback would forget the spend).
 */
export class SqliteSpentConfirmations implements StoredSpentConfirmations {
  constructor(private readonly database: Database) {}

  async spend(id: string, expiresAt: number): Promise<boolean> {
    // Expired rows go with each spend: confirmations come a few a minute.
    await this.database.run(`DELETE FROM ${SPENT} WHERE expires_at < ?`, Date.now());
    const { changes } = await this.database.run(
      `INSERT OR IGNORE INTO ${SPENT} (id, expires_at) VALUES (?, ?)`,
      id,
      expiresAt,
    );
    return changes === 1;
  }
}
