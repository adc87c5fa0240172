import { SetupError } from "../../setupError.ts";
import type { PgPool } from "../pgLibrary.ts";

/**
 * How a PostgreSQL database's changes reach livecmd: `logical`, decoded from the WAL by one
 * relay that passes them on (writers pay nothing on their commit path), or `triggers`, a
 * statement trigger on every table that NOTIFYs (every notifying commit waits on one lock).
 */
export type CaptureMode = "logical" | "triggers";

/** What `postgres(url, { capture })` asks: the best the database allows (`auto`), or one mode. */
export type CaptureChoice = "auto" | CaptureMode;

export const CAPTURE_CHOICES: readonly CaptureChoice[] = ["auto", "logical", "triggers"];

/** The mode a database is captured in, and why, as the start-up log and `doctor` say it. */
export interface Capture {
  readonly mode: CaptureMode;
  readonly why: string;
}

/** What the database allows: logical decoding needs `wal_level = logical` and a role that may replicate. */
interface Allowed {
  wal_level: string;
  replicates: boolean;
}

/**
 * The capture mode of the database `pool` reaches, as `choice` asks; throws when it asks for one
 * the database does not allow, in the words of what asked (`asker`).
 */
export async function chosenCapture(
  pool: PgPool,
  choice: CaptureChoice,
  asker = 'postgres({ capture: "logical" })',
): Promise<Capture> {
  if (choice === "triggers")
    return { mode: "triggers", why: 'postgres({ capture: "triggers" }) asks for it' };
  const { rows } = await pool.query({
    text: `SELECT current_setting('wal_level') AS wal_level,
                  (SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user) AS replicates`,
  });
  const allowed = rows[0] as Allowed;
  const missing = logicalMissing(allowed);
  if (missing === undefined)
    return { mode: "logical", why: "wal_level = logical, and the role may replicate" };
  if (choice === "logical")
    throw new SetupError(`livecmd: ${asker} needs logical decoding, and ${missing}`);
  return { mode: "triggers", why: `${missing} (writes would commit faster by logical decoding)` };
}

/** What the database lacks for logical decoding, or undefined. */
function logicalMissing({ wal_level, replicates }: Allowed): string | undefined {
  if (wal_level !== "logical")
    return `wal_level is ${wal_level}: set wal_level = logical and restart PostgreSQL`;
  if (!replicates)
    return "the role may not replicate: ALTER ROLE ... REPLICATION (on a managed database, grant its replication role)";
  return undefined;
}

/** A capture choice from outside (`postgres()` options), checked. */
export function checkedCaptureChoice(choice: unknown): CaptureChoice {
  if (choice === undefined) return "auto";
  if (CAPTURE_CHOICES.includes(choice as CaptureChoice)) return choice as CaptureChoice;
  throw new SetupError(
    `livecmd: postgres(url, { capture }) must be ${CAPTURE_CHOICES.map((each) => JSON.stringify(each)).join(", ")}, not ${JSON.stringify(choice)}`,
  );
}
