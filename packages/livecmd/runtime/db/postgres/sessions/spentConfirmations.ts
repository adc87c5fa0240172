import type { SharedOn } from "./sessionStore.ts";
import type { StoredSpentConfirmations } from "../../sharedState.ts";
import { SESSION_TABLES } from "./sessionTables.ts";

const { spentConfirmations: SPENT } = SESSION_TABLES;

/**
 * The accepted confirmations of every process serving one PostgreSQL database
 * (`server/policy/spentConfirmations.ts`): one row per spent `requestState` id, until it expires. The
 * insert is the check, so two replicas given the same yes at once run it once.
 */
export class PostgresSpentConfirmations implements StoredSpentConfirmations {
  readonly #db: () => SharedOn;

  constructor(db: () => SharedOn) {
    this.#db = db;
  }

  async spend(id: string, expiresAt: number): Promise<boolean> {
    const pool = await this.#db().pool();
    // Expired rows go with each spend: confirmations come a few a minute.
    const { rows } = await pool.query({
      text: `WITH expired AS (DELETE FROM ${SPENT} WHERE expires_at < now())
             INSERT INTO ${SPENT} (id, expires_at) VALUES ($1, to_timestamp($2 / 1000.0))
             ON CONFLICT (id) DO NOTHING RETURNING 1`,
      values: [id, expiresAt],
    });
    return rows.length === 1;
  }
}
