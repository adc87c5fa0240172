import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";

/** Where the `logical` mode keeps each table's replica identity from before it set it to FULL. */
const KEPT = `${LIVECMD_SCHEMA}.replica_identities`;

/** The function that gives each table back the replica identity it had before livecmd set FULL. */
export const RESTORE_REPLICA_IDENTITIES = `${LIVECMD_SCHEMA}.restore_replica_identities`;

/**
 * The statement that sets `target` (a regclass variable) to log old rows whole, keeping what it
 * had before, as `ALTER TABLE ... REPLICA IDENTITY` takes it back.
 */
export const SET_FULL_IDENTITY = /* sql */ `
      INSERT INTO ${KEPT}
      SELECT target, CASE c.relreplident
               WHEN 'n' THEN 'NOTHING'
               WHEN 'i' THEN format('USING INDEX %I', (SELECT i.relname FROM pg_index x
                                                          JOIN pg_class i ON i.oid = x.indexrelid
                                                         WHERE x.indrelid = target AND x.indisreplident))
               ELSE 'DEFAULT' END
        FROM pg_class c WHERE c.oid = target
      ON CONFLICT (relation) DO NOTHING;
      EXECUTE format('ALTER TABLE %s REPLICA IDENTITY FULL', target);`;

/**
 * The table of replica identities kept, and the function that restores them: a move to the
 * `triggers` mode and `livecmd db uninstall` give every table still FULL what it had (a table
 * whose index went since, or that the role no longer owns, stays FULL). Returns how many.
 */
export const REPLICA_IDENTITIES = /* sql */ `
CREATE TABLE IF NOT EXISTS ${KEPT} (relation oid PRIMARY KEY, identity text NOT NULL);
CREATE OR REPLACE FUNCTION ${RESTORE_REPLICA_IDENTITIES}() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  kept record;
  restored integer := 0;
BEGIN
  FOR kept IN SELECT k.relation::regclass AS target, k.identity FROM ${KEPT} k
                JOIN pg_class c ON c.oid = k.relation
               WHERE c.relreplident = 'f' ORDER BY 1
  LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %s REPLICA IDENTITY %s', kept.target, kept.identity);
      restored := restored + 1;
    EXCEPTION WHEN insufficient_privilege OR undefined_object THEN
      NULL; -- No longer its owner, or its index dropped: it stays FULL.
    END;
  END LOOP;
  DELETE FROM ${KEPT};
  RETURN restored;
END $$;`;
