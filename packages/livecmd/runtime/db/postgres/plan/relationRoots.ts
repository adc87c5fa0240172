import { DDL_EVENT_TRIGGER, rootOf } from "../changes/changeFeed.ts";
import { tableKey, type PlannedTable } from "../keyColumns.ts";
import type { PgClient } from "../pgLibrary.ts";

/** A relation a plan names, as the change feed knows it. */
export interface Relation {
  /** The table its changes are sent as (`ROOT_OF`, as `rootOf` spells it); undefined under multiple inheritance. */
  readonly root: string | undefined;
  /** `pg_class.relkind`: `r` table, `p` partitioned, `m` materialized view, `f` foreign... */
  readonly kind: string;
}

export interface Relations {
  /** By `tableKey`. */
  readonly byKey: ReadonlyMap<string, Relation>;
  /** Whether livecmd's DDL event trigger is installed (a REFRESH is heard only then). */
  readonly ddlHeard: boolean;
}

/** What the change feed makes of each of `tables`, and whether it hears DDL. */
export async function relationsOf(
  client: PgClient,
  tables: readonly PlannedTable[],
): Promise<Relations> {
  const { rows } = await client.query({
    text: /* sql */ `
      SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind,
             ${rootOf("c.oid")} AS root,
             EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = $3 AND evtenabled <> 'D') AS "ddlHeard"
        FROM unnest($1::text[], $2::text[]) t (schema, name)
        JOIN pg_namespace n ON n.nspname = t.schema
        JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.name`,
    values: [tables.map(({ schema }) => schema), tables.map(({ name }) => name), DDL_EVENT_TRIGGER],
  });
  const found = rows as (PlannedTable & { kind: string; root: string | null; ddlHeard: boolean })[];
  return {
    byKey: new Map(
      found.map((row) => [tableKey(row), { root: row.root ?? undefined, kind: row.kind }]),
    ),
    ddlHeard: found[0]?.ddlHeard ?? false,
  };
}
