import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import type { PgPool } from "../pgLibrary.ts";
import { chosenCapture, type Capture, type CaptureMode } from "./captureMode.ts";
import { PUBLICATION } from "./logicalFeed.ts";
import { slotName } from "./logicalSlot.ts";

/** livecmd's slot as PostgreSQL keeps it. */
export interface SlotStatus {
  readonly name: string;
  /** The backend streaming it (a serving process's relay), or null: nobody reads it. */
  readonly relay: number | null;
  /** `reserved`, `extended`, `unreserved` or `lost` (`pg_replication_slots.wal_status`). */
  readonly walStatus: string;
  /** Bytes of WAL the server keeps for it. */
  readonly kept: number;
  /** Bytes of WAL written since the relay last confirmed passing changes on. */
  readonly behind: number;
}

/** What `livecmd db status` says of a database: the capture installed, the one it allows, the slot. */
export interface CaptureStatus {
  /** The mode installed, or undefined: nothing is (serving installs it). */
  readonly installed: CaptureMode | undefined;
  /** The mode a process starting now would install with `capture: "auto"`, and why. */
  readonly allowed: Capture;
  readonly slot: SlotStatus | undefined;
  /** `max_slot_wal_keep_size`: `-1` keeps WAL for a slot nobody reads until the disk is full. */
  readonly keepSize: string;
}

const INSTALLED = /* sql */ `
SELECT to_regnamespace('${LIVECMD_SCHEMA}') IS NOT NULL AS schema,
       EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '${PUBLICATION}') AS publication,
       current_setting('max_slot_wal_keep_size') AS "keepSize"`;

/**
 * A slot's confirmed position can lie a little past `pg_current_wal_lsn()` (a new user's `db
 * status` said "-1 B not yet passed on"): nothing is behind then.
 */
const SLOT = /* sql */ `
SELECT slot_name AS name, active_pid AS relay, wal_status AS "walStatus",
       coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn), 0)::float8 AS kept,
       greatest(coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0), 0)::float8 AS behind
  FROM pg_replication_slots WHERE slot_name = $1`;

export async function captureStatus(pool: PgPool): Promise<CaptureStatus> {
  const found = (await pool.query({ text: INSTALLED })).rows[0] as {
    schema: boolean;
    publication: boolean;
    keepSize: string;
  };
  const installed = !found.schema ? undefined : found.publication ? "logical" : "triggers";
  const slot = (await pool.query({ text: SLOT, values: [await slotName(pool)] })).rows[0] as
    SlotStatus | undefined;
  return { installed, allowed: await chosenCapture(pool, "auto"), slot, keepSize: found.keepSize };
}

/**
 * What should not stay as it is: a slot that no process reads (it keeps WAL), and a server that
 * lets such a slot keep WAL without limit.
 */
export function statusWarnings(status: CaptureStatus): string[] {
  return [unreadSlot(status), unlimitedKeep(status)].filter((line) => line !== undefined);
}

function unreadSlot({ slot, keepSize, installed }: CaptureStatus): string | undefined {
  if (!slot || slot.relay !== null) return undefined;
  const left =
    installed === "logical"
      ? "no process serves this database"
      : "it is left from the logical mode";
  const limit =
    keepSize === "-1"
      ? "until the disk is full (max_slot_wal_keep_size is -1)"
      : `up to max_slot_wal_keep_size = ${keepSize}; past it PostgreSQL lets the slot go, and the next relay re-runs every watch`;
  return `slot ${slot.name} is read by nobody (${left}) and keeps ${bytesText(slot.kept)} of WAL, ${limit}: serve the app, or run livecmd db uninstall if it no longer serves here`;
}

function unlimitedKeep({ keepSize, slot, installed }: CaptureStatus): string | undefined {
  if (keepSize !== "-1" || (!slot && installed !== "logical")) return undefined;
  return UNLIMITED_KEEP;
}

/** Said by `db status`, and on start in the `logical` mode, when a slot may keep WAL without limit. */
export const UNLIMITED_KEEP =
  "max_slot_wal_keep_size is -1: a slot nobody reads keeps WAL until the disk is full; set a limit (ALTER SYSTEM SET max_slot_wal_keep_size = '10GB'; SELECT pg_reload_conf())";

/** Whether the server lets a slot keep WAL without limit. */
export async function keepsWalWithoutLimit(pool: PgPool): Promise<boolean> {
  const { rows } = await pool.query({ text: "SHOW max_slot_wal_keep_size" });
  return (rows[0] as { max_slot_wal_keep_size: string }).max_slot_wal_keep_size === "-1";
}

/** `1.5 MB`: bytes as a person reads them. */
export function bytesText(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
