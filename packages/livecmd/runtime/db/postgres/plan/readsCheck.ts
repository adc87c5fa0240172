import { ANY_TABLE } from "../../anyTable.ts";
import { ROOT_OF } from "../changes/changeFeed.ts";
import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import type { PgClient } from "../pgLibrary.ts";

/**
 * What this connection's transaction has done so far, as PostgreSQL counts it: scans per table
 * (by the table the change feed names it as) and calls per function of the app's, with the
 * function's language (livecmd's own, the change feed's, left out). Functions are counted only under `track_functions = 'all'` (or `pl`),
 * which only a superuser can set.
 */
export interface Activity {
  readonly scans: ReadonlyMap<string, number>;
  readonly calls: ReadonlyMap<string, { readonly count: number; readonly language: string }>;
}

export async function activityOf(client: PgClient): Promise<Activity> {
  const [tables, functions] = await Promise.all([
    client.query({
      text: /* sql */ `SELECT coalesce(${ROOT_OF}(relid), relname) AS "table",
                              sum(seq_scan + coalesce(idx_scan, 0))::int AS scans
                         FROM pg_stat_xact_user_tables GROUP BY 1`,
    }),
    client.query({
      text: /* sql */ `SELECT f.schemaname || '.' || f.funcname AS name, f.calls::int AS count,
                              l.lanname AS language
                         FROM pg_stat_xact_user_functions f
                         JOIN pg_proc p ON p.oid = f.funcid
                         JOIN pg_language l ON l.oid = p.prolang
                        WHERE f.schemaname <> '${LIVECMD_SCHEMA}'`,
    }),
  ]);
  return {
    scans: new Map(
      (tables.rows as { table: string; scans: number }[]).map((row) => [row.table, row.scans]),
    ),
    calls: new Map(
      (functions.rows as { name: string; count: number; language: string }[]).map((row) => [
        row.name,
        row,
      ]),
    ),
  };
}

/**
 * What PostgreSQL says a statement did between `before` and `after` that its read set
 * (`tables`, as the change feed names them) does not account for: tables it scanned that are not
 * in it, and functions it called that are not SQL (whose reads livecmd cannot plan) nor
 * `pure`, unless the read set is already every table. Empty when the read set is complete.
 */
export function unaccounted(
  before: Activity,
  after: Activity,
  tables: ReadonlySet<string>,
  pure: ReadonlySet<string> = new Set(),
): string[] {
  if (tables.has(ANY_TABLE)) return [];
  const missed: string[] = [];
  for (const [table, scans] of after.scans)
    if (scans > (before.scans.get(table) ?? 0) && !tables.has(table))
      missed.push(`scanned ${table}`);
  for (const [name, { count, language }] of after.calls) {
    const called = count > (before.calls.get(name)?.count ?? 0);
    const bare = name.slice(name.indexOf(".") + 1);
    if (called && language !== "sql" && !pure.has(name) && !pure.has(bare))
      missed.push(`called ${name}() (${language})`);
  }
  return missed.sort();
}
