import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import type { CaptureMode } from "./captureMode.ts";
import {
  ANNOUNCE,
  CHANGES_CHANNEL,
  FEED_BASE,
  FEED_EVENT_TRIGGERS,
  WATCH_TABLES_BY_TRIGGERS,
} from "./changeFeed.ts";
import {
  ANNOUNCE_BY_MESSAGE,
  CREATE_PUBLICATION,
  CREATE_SEEN_BY_ALL,
  PUBLICATION,
  WATCH_TABLES_BY_PUBLICATION,
} from "./logicalFeed.ts";
import { REPLICA_IDENTITIES, RESTORE_REPLICA_IDENTITIES } from "./replicaIdentities.ts";

/** `ANNOUNCE` of the `triggers` mode: a NOTIFY on the change feed's channel. */
const ANNOUNCE_BY_NOTIFY = /* sql */ `
CREATE OR REPLACE FUNCTION ${ANNOUNCE}(payload text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_notify('${CHANGES_CHANNEL}', payload);
$$;`;

/** What each mode installs besides the base and the event triggers. */
const BY_MODE: Readonly<Record<CaptureMode, readonly string[]>> = {
  logical: [
    ANNOUNCE_BY_MESSAGE(ANNOUNCE),
    CREATE_SEEN_BY_ALL,
    CREATE_PUBLICATION,
    WATCH_TABLES_BY_PUBLICATION,
  ],
  triggers: [
    ANNOUNCE_BY_NOTIFY,
    `DROP PUBLICATION IF EXISTS ${PUBLICATION};`,
    `SELECT ${RESTORE_REPLICA_IDENTITIES}();`,
    WATCH_TABLES_BY_TRIGGERS,
  ],
};

/**
 * The change feed of `mode`, installed idempotently in one transaction; a database moves from
 * one mode to the other by installing the other (its triggers dropped or made, its publication
 * made or dropped, its tables' replica identities set FULL or given back). The last statement says how many tables it changed (`added`).
 */
export function changeFeedInstall(mode: CaptureMode): string {
  return [
    FEED_BASE,
    REPLICA_IDENTITIES,
    ...BY_MODE[mode],
    FEED_EVENT_TRIGGERS,
    `SELECT ${LIVECMD_SCHEMA}.watch_tables() AS added;`,
  ].join("\n");
}

/** The `triggers` mode's install, as `livecmd db install` ran it before there were modes. */
export const INSTALL_CHANGE_FEED = changeFeedInstall("triggers");
