import type { PgQueryable } from "../pgLibrary.ts";

/** The slot of the database `pool` reaches: one per database, named by its oid (slots are the cluster's). */
const SLOT_NAME =
  "SELECT 'livecmd_' || oid AS slot FROM pg_database WHERE datname = current_database()";

export async function slotName(pool: PgQueryable): Promise<string> {
  const { rows } = await pool.query({ text: SLOT_NAME });
  return (rows[0] as { slot: string }).slot;
}

/** The slot to stream, and where it was confirmed; `created` when changes before it are unknown. */
export interface Slot {
  readonly name: string;
  readonly confirmed: string;
  readonly created: boolean;
}

/**
 * livecmd's slot, made when missing and made again when the server let its WAL go (`lost`, past
 * `max_slot_wal_keep_size`): either way what was written before it is not in it, which the
 * relay says as every table changed.
 */
export async function ensuredSlot(pool: PgQueryable): Promise<Slot> {
  const name = await slotName(pool);
  const { rows } = await pool.query({
    text: "SELECT wal_status, confirmed_flush_lsn::text AS confirmed FROM pg_replication_slots WHERE slot_name = $1",
    values: [name],
  });
  const found = rows[0] as { wal_status: string; confirmed: string } | undefined;
  if (found && found.wal_status !== "lost")
    return { name, confirmed: found.confirmed, created: false };
  if (found) await pool.query({ text: "SELECT pg_drop_replication_slot($1)", values: [name] });
  try {
    const made = await pool.query({
      text: "SELECT lsn::text AS confirmed FROM pg_create_logical_replication_slot($1, 'pgoutput')",
      values: [name],
    });
    return { name, confirmed: (made.rows[0] as { confirmed: string }).confirmed, created: true };
  } catch (error) {
    // Another process starting at the same time made it first.
    if ((error as { code?: string }).code !== DUPLICATE_OBJECT) throw error;
    return ensuredSlot(pool);
  }
}

const DUPLICATE_OBJECT = "42710";

/** Said when a new slot began: what was written before it was streamed by nobody. */
export const SLOT_BEGAN = JSON.stringify({ schema: "livecmd slot created" });

/** Drops livecmd's slot unless a relay streams it: nobody reads it now, and it would keep WAL. */
export async function dropSlot(pool: PgQueryable): Promise<void> {
  await pool.query({
    text: "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active",
    values: [await slotName(pool)],
  });
}
