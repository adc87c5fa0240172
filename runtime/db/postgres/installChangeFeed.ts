import type { PgPool } from "./pgShapes.ts";
import { INSTALL_CHANGE_FEED } from "./changeFeed.ts";

/** Installs the change feed in one transaction; returns how many tables got their trigger now. */
export async function installChangeFeed(pool: PgPool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query({ text: "BEGIN" });
    try {
      const results = (await client.query({ text: INSTALL_CHANGE_FEED })) as unknown as
        { rows: { added?: number }[] }[] | { rows: { added?: number }[] };
      await client.query({ text: "COMMIT" });
      const last = Array.isArray(results) ? results[results.length - 1]! : results;
      return Number(last.rows[0]?.added ?? 0);
    } catch (error) {
      await client.query({ text: "ROLLBACK" });
      throw error;
    }
  } finally {
    client.release();
  }
}
