import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import type { PgPool, PgQueryable } from "../pgLibrary.ts";
import { SetupError } from "../../setupError.ts";
import { INSTALL_LOCK, OLD_TRIGGER, TRIGGERS } from "./changeFeed.ts";
import { PUBLICATION } from "./logicalFeed.ts";
import { dropSlot, slotName } from "./logicalSlot.ts";
import { RESTORE_REPLICA_IDENTITIES } from "./replicaIdentities.ts";

/** What `livecmd db uninstall` removed. */
export interface Uninstalled {
  /** The slot dropped, if there was one. */
  readonly slot: string | undefined;
  readonly publication: boolean;
  /** Whether schema livecmd was there (its functions, event triggers, shared tables). */
  readonly schema: boolean;
  /** The tables whose statement triggers went with it. */
  readonly triggered: number;
  /** The tables given back the replica identity they had before the `logical` mode. */
  readonly restored: number;
}

/** What is installed now, read before anything is dropped. */
const INSTALLED = /* sql */ `
SELECT to_regnamespace('${LIVECMD_SCHEMA}') IS NOT NULL AS schema,
       to_regprocedure('${RESTORE_REPLICA_IDENTITIES}()') IS NOT NULL AS restores,
       EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '${PUBLICATION}') AS publication,
       (SELECT count(DISTINCT tgrelid)::int FROM pg_trigger
         WHERE tgname IN ('${OLD_TRIGGER}', ${TRIGGERS.map(([name]) => `'${name}'`).join(", ")})) AS triggered`;

interface Installed {
  schema: boolean;
  restores: boolean;
  publication: boolean;
  triggered: number;
}

const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * Removes everything livecmd installed on the database `pool` reaches: its slot (refused while
 * a process relays it), its publication, its tables' replica identities given back, and schema
 * livecmd with what depends on it (the statement triggers on the app's tables, the event
 * triggers, the shared sessions). Idempotent; the drops but the slot's are one transaction.
 */
export async function uninstallCapture(pool: PgPool): Promise<Uninstalled> {
  const slot = await droppedSlot(pool);
  const client = await pool.connect();
  try {
    await client.query({ text: "BEGIN" });
    try {
      await client.query({ text: `SELECT pg_advisory_xact_lock(${INSTALL_LOCK})` });
      const found = (await client.query({ text: INSTALLED })).rows[0] as Installed;
      const restored = found.restores ? await restoredIdentities(client) : 0;
      await client.query({ text: `DROP PUBLICATION IF EXISTS ${PUBLICATION}` });
      await client.query({ text: `DROP SCHEMA IF EXISTS ${LIVECMD_SCHEMA} CASCADE` });
      await client.query({ text: "COMMIT" });
      const { schema, publication, triggered } = found;
      return { slot, publication, schema, triggered, restored };
    } catch (error) {
      await client.query({ text: "ROLLBACK" });
      throw uninstallError(error as Error & { code?: string });
    }
  } finally {
    client.release();
  }
}

/** Gives the app's tables back the replica identities they had; how many. */
async function restoredIdentities(client: PgQueryable): Promise<number> {
  const { rows } = await client.query({
    text: `SELECT ${RESTORE_REPLICA_IDENTITIES}() AS restored`,
  });
  return (rows[0] as { restored: number }).restored;
}

/** Drops livecmd's slot; its name if there was one. A slot a relay streams is not dropped: the app still serves. */
async function droppedSlot(pool: PgPool): Promise<string | undefined> {
  const name = await slotName(pool);
  const slotOf = async () =>
    (
      await pool.query({
        text: "SELECT active_pid AS relay FROM pg_replication_slots WHERE slot_name = $1",
        values: [name],
      })
    ).rows[0] as { relay: number | null } | undefined;
  const before = await slotOf();
  if (!before) return undefined;
  await dropSlot(pool);
  const after = await slotOf();
  if (after)
    throw new SetupError(
      `livecmd: a livecmd process relays this database's changes (slot ${name}, streamed by backend pid ${after.relay}); stop every process that serves the app, then run db uninstall again`,
    );
  return name;
}

function uninstallError(error: Error & { code?: string }): Error {
  if (error.code !== INSUFFICIENT_PRIVILEGE) return error;
  return new SetupError(
    `livecmd: db uninstall could not drop what livecmd installed (${error.message}); livecmd's event triggers and publication belong to whoever installed them: run db uninstall with a superuser's URL`,
    { cause: error },
  );
}
