/** The NOTIFY channel of the change feed: each notification's payload is one changed table's name. */
export const CHANGES_CHANNEL = "livecmd_changes";

/** The schema livecmd keeps its functions in, apart from the app's tables. */
export const LIVECMD_SCHEMA = "livecmd";

/** Serializes installs by every process and `livecmd db install` on one database. */
const INSTALL_LOCK = "hashtext('livecmd install')";

/**
 * The change feed, installed idempotently: a statement-level trigger on every table of the
 * database (outside the system schemas and livecmd's own) that `pg_notify`s the table's name.
 * PostgreSQL delivers notifications at commit, drops them on rollback and sends each distinct
 * payload once per transaction, so a burst of statements is one notification per table. Writes
 * made by anyone count: psql, another process, a trigger, a foreign-key cascade.
 *
 * Tables created later get their trigger from an event trigger when the installing role may
 * create one (a superuser); otherwise from the next install (the next process start, or
 * `livecmd db install` after a migration).
 */
export const INSTALL_CHANGE_FEED = /* sql */ `
SELECT pg_advisory_xact_lock(${INSTALL_LOCK});
CREATE SCHEMA IF NOT EXISTS ${LIVECMD_SCHEMA};
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME);
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.watch_tables() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  target regclass;
  added integer := 0;
BEGIN
  FOR target IN
    SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p')
       AND n.nspname NOT IN ('pg_catalog', 'information_schema', '${LIVECMD_SCHEMA}')
       AND n.nspname NOT LIKE 'pg\\_%'
       AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'livecmd_notify')
     ORDER BY 1
  LOOP
    EXECUTE format('CREATE TRIGGER livecmd_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION ${LIVECMD_SCHEMA}.notify_change()', target);
    added := added + 1;
  END LOOP;
  RETURN added;
END $$;
CREATE OR REPLACE FUNCTION ${LIVECMD_SCHEMA}.watch_new_tables() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${LIVECMD_SCHEMA}.watch_tables();
END $$;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'livecmd_watch_new_tables') THEN
    CREATE EVENT TRIGGER livecmd_watch_new_tables ON ddl_command_end
      WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
      EXECUTE FUNCTION ${LIVECMD_SCHEMA}.watch_new_tables();
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  NULL; -- Not a superuser: new tables are watched from the next install.
END $$;
SELECT ${LIVECMD_SCHEMA}.watch_tables() AS added;
`;
