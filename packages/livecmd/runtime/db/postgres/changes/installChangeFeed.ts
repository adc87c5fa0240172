import type { PgPool } from "../pgLibrary.ts";
import { DDL_EVENT_TRIGGER, INSTALL_CHANGE_FEED, NEW_TABLES_EVENT_TRIGGER } from "./changeFeed.ts";

/** Said when the installing role could not create livecmd's event triggers (not a superuser). */
export const WITHOUT_EVENT_TRIGGERS =
  "livecmd: livecmd's event triggers are not installed (only a superuser can create them): tables and partitions created from now on are watched only after the next `livecmd db install` or process start, and a partition attached or detached, a view or function redefined, or a materialized view refreshed is not heard until then; run `livecmd db install` once with a superuser's URL to install them";

/** Whether both of livecmd's event triggers are in the database. */
export async function hasEventTriggers(pool: PgPool): Promise<boolean> {
  const { rows } = await pool.query({
    text: "SELECT count(*)::int AS found FROM pg_event_trigger WHERE evtname = ANY ($1::text[])",
    values: [[DDL_EVENT_TRIGGER, NEW_TABLES_EVENT_TRIGGER]],
  });
  return (rows[0] as { found: number }).found === 2;
}

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
