import type { PgPool } from "../pgLibrary.ts";
import {
  chosenCapture,
  type Capture,
  type CaptureChoice,
  type CaptureMode,
} from "./captureMode.ts";
import {
  ANNOUNCE,
  CHANGES_CHANNEL,
  DDL_EVENT_TRIGGER,
  INSTALL_LOCK,
  NEW_TABLES_EVENT_TRIGGER,
} from "./changeFeed.ts";
import { changeFeedInstall } from "./feedInstall.ts";
import { dropSlot, ensuredSlot, SLOT_BEGAN } from "./logicalSlot.ts";

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

/**
 * How long the install waits for a lock on one of the app's tables before it lets go of all it
 * holds and tries again. Shorter than `deadlock_timeout` (1 s): where the install and an app
 * transaction wait on each other (the install holds one table and wants another the app's
 * transaction holds, which wants the first for a foreign key), the install is the one that
 * gives up, never the app's write; and writers queued behind the install wait this long at most.
 */
const LOCK_WAIT = "100ms";

/** How many times the install is tried before a start fails for tables locked all along. */
const LOCKED_TRIES = 50;

/** SQLSTATEs of an install that lost a wait for a lock: tried again, after a pause. */
const LOST_A_LOCK_WAIT = new Set(["55P03", "40P01"]);

/**
 * Installs the change feed of `mode` in one transaction, tried again while the app's own
 * transactions keep a table it changes locked; returns how many tables it changed now (given
 * their triggers, or set to log their old rows whole).
 */
export async function installChangeFeed(pool: PgPool, mode: CaptureMode): Promise<number> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await installOnce(pool, mode);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !LOST_A_LOCK_WAIT.has(code)) throw error;
      if (tries === LOCKED_TRIES)
        throw new Error(
          `livecmd could not install its change feed: the app's tables stayed locked by other transactions through ${LOCKED_TRIES} tries (${(error as Error).message}); end long transactions, or run livecmd db install when the database is quieter`,
          { cause: error },
        );
      await new Promise((resolve) => setTimeout(resolve, 20 * tries));
    }
  }
}

async function installOnce(pool: PgPool, mode: CaptureMode): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query({ text: "BEGIN" });
    try {
      // Installs wait for each other without a limit (they hold nothing then); then the app's tables.
      await client.query({ text: `SELECT pg_advisory_xact_lock(${INSTALL_LOCK})` });
      await client.query({ text: `SET LOCAL lock_timeout = '${LOCK_WAIT}'` });
      const results = (await client.query({ text: changeFeedInstall(mode) })) as unknown as
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

/** The capture mode installed, and how many tables the install changed. */
export interface InstalledCapture {
  readonly capture: Capture;
  readonly added: number;
}

/**
 * Installs the change feed in the mode `choice` asks of what the database allows (`onBus`: for
 * a process whose changes come by the bus). In the `triggers` mode livecmd's slot is dropped
 * too: nobody streams it, and it would keep WAL.
 */
export async function installCapture(
  pool: PgPool,
  choice: CaptureChoice,
  onBus = false,
): Promise<InstalledCapture> {
  const capture = await chosenCapture(pool, choice, onBus ? "postgres({ bus })" : undefined);
  const added = await installChangeFeed(pool, capture.mode);
  if (capture.mode === "triggers") await dropSlot(pool);
  // Made before the database is ready, so that no write of this process's comes before it; the
  // processes serving already (a slot dropped under them) are told to re-run what they watch:
  // at once by NOTIFY, or, on the bus, which hears only the slot's stream, through the stream.
  else if ((await ensuredSlot(pool)).created)
    await pool.query(
      onBus
        ? { text: `SELECT ${ANNOUNCE}($1)`, values: [SLOT_BEGAN] }
        : { text: "SELECT pg_notify($1, $2)", values: [CHANGES_CHANNEL, SLOT_BEGAN] },
    );
  return { capture, added };
}

/** How the start-up log and `db install` say the capture mode. */
export function captureLine({ mode, why }: Capture): string {
  return mode === "logical"
    ? `livecmd: PostgreSQL's changes are captured by logical decoding (${why}): one process relays them, writers pay nothing at commit`
    : `livecmd: PostgreSQL's changes are captured by triggers that NOTIFY: ${why}`;
}
