import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import { OLD_TRIGGER, TRIGGERS } from "./changeFeed.ts";
import { SET_FULL_IDENTITY } from "./replicaIdentities.ts";
import { MESSAGE_PREFIX } from "./walChanges.ts";

/** The publication the relay streams: every table, a partition's rows as its root's. */
export const PUBLICATION = "livecmd";

/** The user tables of the database (outside the system schemas and livecmd's own), as `c`. */
const USER_TABLES = /* sql */ `
  SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('r', 'p')
     AND n.nspname NOT IN ('pg_catalog', 'information_schema', '${LIVECMD_SCHEMA}')
     AND n.nspname NOT LIKE 'pg\\_%'`;

/**
 * `watch_tables()` of the `logical` mode: no trigger on any table (those of the `triggers` mode
 * dropped), each table's old rows logged whole (`REPLICA IDENTITY FULL`, so an update or delete
 * carries the old values filters compare; what it had kept, `replicaIdentities.ts`), and each in the publication when it is not for all
 * tables (a role that may not create one for all). A table the role does not own is left as it
 * is: its old rows carry their replica identity alone, and a filter on another column counts
 * every change to it. Returns how many tables it set to log old rows whole.
 */
export const WATCH_TABLES_BY_PUBLICATION = /* sql */ `
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.watch_tables() RETURNS integer LANGUAGE plpgsql
SET client_min_messages = warning AS $$
DECLARE
  target regclass;
  added integer := 0;
BEGIN
  FOR target IN SELECT DISTINCT t.tgrelid::regclass FROM pg_trigger t
                 WHERE t.tgname IN ('${OLD_TRIGGER}', ${TRIGGERS.map(([name]) => `'${name}'`).join(", ")})
  LOOP
${[OLD_TRIGGER, ...TRIGGERS.map(([name]) => name)]
  .map((name) => `    EXECUTE format('DROP TRIGGER IF EXISTS ${name} ON %s', target);`)
  .join("\n")}
  END LOOP;
  FOR target IN ${USER_TABLES} AND c.relreplident <> 'f' ORDER BY 1
  LOOP
    BEGIN${SET_FULL_IDENTITY}
      added := added + 1;
    EXCEPTION WHEN insufficient_privilege THEN
      NULL; -- Not its owner: its old rows carry their replica identity alone.
    END;
  END LOOP;
  IF NOT (SELECT puballtables FROM pg_publication WHERE pubname = '${PUBLICATION}') THEN
    FOR target IN ${USER_TABLES}
       AND c.oid NOT IN (SELECT prrelid FROM pg_publication_rel r
                           JOIN pg_publication p ON p.oid = r.prpubid
                          WHERE p.pubname = '${PUBLICATION}')
     ORDER BY 1
    LOOP
      BEGIN
        EXECUTE format('ALTER PUBLICATION ${PUBLICATION} ADD TABLE %s', target);
      EXCEPTION WHEN insufficient_privilege THEN
        NULL; -- Not its owner: its changes are not streamed (doctor says which).
      END;
    END LOOP;
  END IF;
  RETURN added;
END $$;`;

/** The publication, made once: for all tables when the role may (a superuser), else table by table. */
export const CREATE_PUBLICATION = /* sql */ `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '${PUBLICATION}') THEN
    BEGIN
      CREATE PUBLICATION ${PUBLICATION} FOR ALL TABLES WITH (publish_via_partition_root = true);
    EXCEPTION WHEN insufficient_privilege THEN
      CREATE PUBLICATION ${PUBLICATION} WITH (publish_via_partition_root = true);
    END;
  END IF;
END $$;`;

/**
 * Whether a snapshot taken now sees every transaction of `xids` (32-bit ids, as pgoutput sends
 * them, placed in the 64-bit id space by the snapshot's xmax: they are within 2^31 of it).
 * PostgreSQL sends a commit down the slot once it is flushed, a moment before other sessions
 * see it (the committing backend leaves the proc array after the flush, and after a synchronous
 * standby answers): a reader re-run on the notification then would read the rows as they were.
 */
export const SEEN_BY_ALL = `${LIVECMD_SCHEMA}.seen_by_all`;

export const CREATE_SEEN_BY_ALL = /* sql */ `
CREATE OR REPLACE FUNCTION ${SEEN_BY_ALL}(xids bigint[]) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT EXISTS (
    SELECT FROM pg_current_snapshot() AS snap,
                LATERAL (SELECT pg_snapshot_xmax(snap)::text::bigint AS xmax) AS s,
                unnest(xids) AS x
     WHERE NOT pg_visible_in_snapshot(
             (s.xmax + (((x - (s.xmax & 4294967295) + 2147483648) & 4294967295) - 2147483648))::text::xid8,
             snap))
$$;`;

/** `ANNOUNCE` of the `logical` mode: a message in the WAL, which the relay passes on in commit order. */
export const ANNOUNCE_BY_MESSAGE = (announce: string) => /* sql */ `
CREATE OR REPLACE FUNCTION ${announce}(payload text) RETURNS void LANGUAGE sql AS $$
  SELECT FROM pg_logical_emit_message(true, '${MESSAGE_PREFIX}', payload);
$$;`;
