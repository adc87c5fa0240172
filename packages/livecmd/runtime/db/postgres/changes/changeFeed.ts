import { isKeyColumn } from "../keyColumns.ts";
import { FILTER_TYPES } from "../plan/pgFilters.ts";
import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import { installSessionTables } from "../sessions/sessionTables.ts";

/**
 * The NOTIFY channel of the change feed: each notification's payload is one changed table's
 * change, as `changePayload.ts` reads it.
 */
export const CHANGES_CHANNEL = "livecmd_changes";

/**
 * The table a change to a relation is a change to, and a read of it a read of: the top of its
 * partition or inheritance tree (itself when it has no parent), so that a read planned as scans
 * of partitions meets a write through the parent and the other way round. NULL when some
 * relation on the way up has two parents (multiple inheritance): no one table stands for it.
 */
export const ROOT_OF = `${LIVECMD_SCHEMA}.root_of`;

/**
 * `ROOT_OF`'s answer for the relation whose oid is `relation` (an SQL expression), in SQL alone:
 * the function's body, and what a plan's relations are looked up by, which must not wait for
 * the function to be installed (a run's first statements on a fresh database come before it).
 */
export function rootOf(relation: string): string {
  return /* sql */ `(
    WITH RECURSIVE up (rel) AS (
      SELECT ${relation} UNION SELECT i.inhparent FROM up JOIN pg_inherits i ON i.inhrelid = up.rel)
    SELECT CASE WHEN EXISTS (SELECT 1 FROM up JOIN pg_inherits i ON i.inhrelid = up.rel
                              GROUP BY up.rel HAVING count(*) > 1) THEN NULL
           ELSE (SELECT c.relname FROM up JOIN pg_class c ON c.oid = up.rel
                  WHERE NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = up.rel)) END)`;
}

/**
 * The function that tells every process a change the database made outside a table's rows (DDL,
 * a materialized view refreshed): a NOTIFY, or a logical message the relay passes on.
 */
export const ANNOUNCE = `${LIVECMD_SCHEMA}.announce`;

/** Serializes installs by every process and `livecmd db install` on one database. */
export const INSTALL_LOCK = "hashtext('livecmd install')";

/** The trigger installed by versions before row images (one statement trigger, the table's name). */
export const OLD_TRIGGER = "livecmd_notify";

/**
 * One trigger per event: PostgreSQL allows transition tables only on a trigger of one event, and
 * TRUNCATE has none (it stays a plain statement trigger, and says "whole table").
 */
export const TRIGGERS = [
  ["livecmd_notify_insert", "INSERT", "REFERENCING NEW TABLE AS livecmd_new"],
  [
    "livecmd_notify_update",
    "UPDATE",
    "REFERENCING OLD TABLE AS livecmd_old NEW TABLE AS livecmd_new",
  ],
  ["livecmd_notify_delete", "DELETE", "REFERENCING OLD TABLE AS livecmd_old"],
  ["livecmd_notify_truncate", "TRUNCATE", ""],
] as const;

/** A NOTIFY payload must stay under 8,000 bytes; a larger change is sent as "whole table". */
export const PAYLOAD_LIMIT = 7_999;

/**
 * The most images read from one transition table: an image is at least `{}` and a separator, 4
 * bytes, so this many are over the limit whatever they hold, and a bulk write of a million rows
 * does not build a million images to find out that they do not fit.
 */
export const IMAGES_READ = Math.ceil(PAYLOAD_LIMIT / 4) + 1;

/**
 * The columns every row image carries: the table's key columns (`keyColumns.ts`), looked up at
 * each firing, so an index added later is carried at once. A read keyed on a column an image
 * lacks counts as changed.
 */
const KEY_COLUMNS = /* sql */ `
  SELECT coalesce(array_agg(a.attname::text ORDER BY a.attnum), '{}')
    FROM pg_attribute a
   WHERE ${isKeyColumn("TG_RELID")}`;

/**
 * The columns of the types filters compare (`pgFilters.ts`), which an image carries too when
 * their values are short and the images fit a payload; else images carry key columns alone.
 */
const FILTER_COLUMNS = /* sql */ `
  SELECT coalesce(array_agg(a.attname::text ORDER BY a.attnum), '{}')
    FROM pg_attribute a
   WHERE a.attrelid = TG_RELID AND a.attnum > 0 AND NOT a.attisdropped
     AND a.atttypid IN (${FILTER_TYPES.map((name) => `'${name}'::regtype`).join(", ")})`;

/** A value longer than this (in bytes) is left out of an image: a filter on it counts every change. */
export const IMAGE_VALUE_LIMIT = 256;

/**
 * The event trigger that tells every process of DDL that can change what a statement reads (a
 * partition attached or detached, a view, function or policy redefined, an index, a column's
 * type) as `{"schema": tag}`, and of a materialized view's REFRESH as a change to the view
 * (REFRESH fires no trigger). Only a superuser may create it; without it, such DDL is seen by a
 * process's next start, and a REFRESH not at all (`planTables.ts` says so of each read).
 */
export const DDL_EVENT_TRIGGER = "livecmd_notify_ddl";

/** The event trigger that gives tables created later their triggers (a superuser's too). */
export const NEW_TABLES_EVENT_TRIGGER = "livecmd_watch_new_tables";

/** The DDL after which cached plans may be wrong; DROPs are not among them (see `docs/mcp.md`). */
const PLAN_CHANGING_TAGS = [
  "ALTER FOREIGN TABLE",
  "ALTER FUNCTION",
  "ALTER INDEX",
  "ALTER MATERIALIZED VIEW",
  "ALTER POLICY",
  "ALTER TABLE",
  "ALTER VIEW",
  "CREATE FUNCTION",
  "CREATE INDEX",
  "CREATE POLICY",
  "CREATE RULE",
  "CREATE TABLE",
  "CREATE VIEW",
  "REFRESH MATERIALIZED VIEW",
];

/**
 * What every capture mode installs first, under an advisory lock (two processes installing at
 * once do not collide): livecmd's schema, the shared sessions' tables, `ROOT_OF`, and the
 * trigger function of the `triggers` mode.
 */
export const FEED_BASE = /* sql */ `
SELECT pg_advisory_xact_lock(${INSTALL_LOCK});
CREATE SCHEMA IF NOT EXISTS ${LIVECMD_SCHEMA};
-- Before the event triggers: creating these tables must not run them (they would count the
-- tables watched now as watched before).
${installSessionTables()}
-- plpgsql, for its cached plans: the feed's triggers call this on every write.
CREATE OR REPLACE FUNCTION ${ROOT_OF}(relation oid) RETURNS name LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = relation) THEN
    RETURN (SELECT relname FROM pg_class WHERE oid = relation);
  END IF;
  RETURN ${rootOf("relation")};
END $$;
-- JIT off: its queries read a few catalog rows, but a database's planner settings can price them
-- past jit_above_cost (enable_nestloop = off makes every nested loop cost 1e10), and then each
-- write would wait half a second for the JIT to compile them.
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.notify_change() RETURNS trigger LANGUAGE plpgsql
  SET jit = off AS $$
DECLARE
  key_columns text[];
  filter_columns text[];
  images jsonb := '[]';
  key_images jsonb := '[]';
  side text;
  payload text;
  changed text := coalesce(${ROOT_OF}(TG_RELID), TG_TABLE_NAME);
BEGIN
  IF TG_OP <> 'TRUNCATE' THEN
    key_columns := (${KEY_COLUMNS});
    filter_columns := (${FILTER_COLUMNS});
    FOREACH side IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY['livecmd_new']
                                     WHEN 'DELETE' THEN ARRAY['livecmd_old']
                                     ELSE ARRAY['livecmd_old', 'livecmd_new'] END
    LOOP
      EXECUTE format(
        'SELECT $1 || coalesce(jsonb_agg((SELECT coalesce(jsonb_object_agg(k, r ->> k), ''{}'') FROM unnest($2 || $3) k WHERE k = ANY ($2) OR r ->> k IS NULL OR octet_length(r ->> k) <= ${IMAGE_VALUE_LIMIT})), ''[]''), '
        '$4 || coalesce(jsonb_agg((SELECT coalesce(jsonb_object_agg(k, r ->> k), ''{}'') FROM unnest($2) k)), ''[]'') '
        'FROM (SELECT to_jsonb(t) AS r FROM %I t LIMIT ${IMAGES_READ}) s',
        side) INTO images, key_images USING images, key_columns, filter_columns, key_images;
    END LOOP;
    IF jsonb_array_length(images) = 0 THEN RETURN NULL; END IF;
    payload := jsonb_build_object('table', changed, 'rows', images)::text;
    IF octet_length(payload) > ${PAYLOAD_LIMIT} THEN
      payload := jsonb_build_object('table', changed, 'rows', key_images)::text;
    END IF;
  END IF;
  IF payload IS NULL OR octet_length(payload) > ${PAYLOAD_LIMIT} THEN
    payload := jsonb_build_object('table', changed)::text;
  END IF;
  PERFORM pg_notify('${CHANGES_CHANNEL}', payload);
  RETURN NULL;
END $$;
`;

/**
 * The change feed by triggers (`feedInstall.ts` installs it, in the `triggers` capture mode): statement-level triggers on every table of the
 * database (outside the system schemas and livecmd's own) that `pg_notify` the table and the
 * images of the rows the statement changed (old and new values of their key columns and of
 * their short columns of the types filters compare, from transition tables, so rows changed by
 * cascades and by the app's own triggers are seen: their statements fire the triggers too), or
 * of their key columns alone when those do not fit a payload, or the table alone when neither
 * does or on TRUNCATE.
 * PostgreSQL delivers notifications at commit, drops them on rollback and sends each distinct
 * payload once per transaction: a transaction sends one notification per statement that changed
 * rows of a table (statements that changed nothing send none; repeats of one payload, one).
 *
 * Install migrates tables watched by earlier versions (their one trigger is replaced by these),
 * under an advisory lock, so two processes installing at once do not collide.
 *
 * Tables created later get their triggers from an event trigger when the installing role may
 * create one (a superuser); otherwise from the next install (the next process start, or
 * `livecmd db install` after a migration).
 */
export const WATCH_TABLES_BY_TRIGGERS = /* sql */ `
-- Quiet: the event trigger runs this after every CREATE TABLE, and psql would print a notice for
-- each trigger the DROP IF EXISTS below did not find.
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.watch_tables() RETURNS integer LANGUAGE plpgsql
SET client_min_messages = warning AS $$
DECLARE
  target regclass;
  added integer := 0;
BEGIN
  FOR target IN
    SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p')
       AND n.nspname NOT IN ('pg_catalog', 'information_schema', '${LIVECMD_SCHEMA}')
       AND n.nspname NOT LIKE 'pg\\_%'
       AND (SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = c.oid
             AND t.tgname IN (${TRIGGERS.map(([name]) => `'${name}'`).join(", ")})) < ${TRIGGERS.length}
     ORDER BY 1
  LOOP
    EXECUTE format('DROP TRIGGER IF EXISTS ${OLD_TRIGGER} ON %s', target);
${TRIGGERS.map(
  ([name, event, referencing]) =>
    `    EXECUTE format('DROP TRIGGER IF EXISTS ${name} ON %s', target);
    EXECUTE format('CREATE TRIGGER ${name} AFTER ${event} ON %s ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${LIVECMD_SCHEMA}.notify_change()', target);`,
).join("\n")}
    added := added + 1;
  END LOOP;
  RETURN added;
END $$;
`;

/**
 * The event triggers of every mode: tables created later watched (`watch_tables()`, the mode's),
 * and DDL that changes plans said through `ANNOUNCE` (the mode's way of telling every process).
 */
export const FEED_EVENT_TRIGGERS = /* sql */ `
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.watch_new_tables() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${LIVECMD_SCHEMA}.watch_tables();
END $$;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = '${NEW_TABLES_EVENT_TRIGGER}') THEN
    CREATE EVENT TRIGGER ${NEW_TABLES_EVENT_TRIGGER} ON ddl_command_end
      WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
      EXECUTE FUNCTION ${LIVECMD_SCHEMA}.watch_new_tables();
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  NULL; -- Not a superuser: new tables are watched from the next install.
END $$;
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.notify_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
  command record;
BEGIN
  FOR command IN SELECT objid FROM pg_event_trigger_ddl_commands()
                  WHERE schema_name IS DISTINCT FROM 'pg_temp'
                    AND schema_name IS DISTINCT FROM '${LIVECMD_SCHEMA}'
  LOOP
    IF TG_TAG = 'REFRESH MATERIALIZED VIEW' THEN
      PERFORM ${ANNOUNCE}(jsonb_build_object('table', ${ROOT_OF}(command.objid))::text);
    ELSE
      PERFORM ${ANNOUNCE}(jsonb_build_object('schema', TG_TAG)::text);
      RETURN;
    END IF;
  END LOOP;
END $$;
-- Made again at every install, so that its tags are this version's.
DO $$
BEGIN
  DROP EVENT TRIGGER IF EXISTS ${DDL_EVENT_TRIGGER};
  CREATE EVENT TRIGGER ${DDL_EVENT_TRIGGER} ON ddl_command_end
    WHEN TAG IN (${PLAN_CHANGING_TAGS.map((tag) => `'${tag}'`).join(", ")})
    EXECUTE FUNCTION ${LIVECMD_SCHEMA}.notify_ddl();
EXCEPTION WHEN insufficient_privilege THEN
  NULL; -- Not a superuser: see DDL_EVENT_TRIGGER.
END $$;
`;
