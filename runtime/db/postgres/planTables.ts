import { keyColumnsOf, tableKey, type PlannedTable } from "./keyColumns.ts";
import type { PgClient } from "./pgShapes.ts";
import { planNodes, planReads, type PlanNode, type PlannedRead } from "./planReads.ts";

/** How one SQL statement reads its tables (by key or whole), and the tables it writes. */
export interface TableAccess {
  reads: readonly PlannedRead[];
  writes: readonly string[];
}

/** A statement's tables, or why they cannot be known (then it counts as reading every table). */
export type PlannedAccess = TableAccess | { unknown: string };

const EXPLAINED = "livecmd_explain";

/**
 * The tables a statement reads and writes, from PostgreSQL's own plan of it: scans name the
 * tables read (a view's base tables) and the rows they read (`planReads.ts`), ModifyTable the
 * one written. The plan is the generic one (parameters left as parameters,
 * `plan_cache_mode = force_generic_plan`, since PostgreSQL 15 has no EXPLAIN GENERIC_PLAN),
 * because a plan for some values can drop a branch that other values need, and the answer is
 * cached per statement text. A scan of a function outside
 * pg_catalog may read anything, so that statement reads every table.
 */
export async function explainTables(client: PgClient, sql: string): Promise<PlannedAccess> {
  await client.query({ text: "SET plan_cache_mode = force_generic_plan" });
  try {
    await client.query({ text: `PREPARE ${EXPLAINED} AS ${sql}` });
    try {
      const { rows } = await client.query({
        text: "SELECT array_to_json(parameter_types::text[]) AS types FROM pg_prepared_statements WHERE name = $1",
        values: [EXPLAINED],
      });
      const paramTypes = (rows[0] as { types: string[] }).types;
      const nulls = paramTypes.map(() => "NULL").join(", ");
      const explained = await client.query({
        text: `EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE ${EXPLAINED}${nulls ? `(${nulls})` : ""}`,
      });
      const [{ Plan }] = (explained.rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })[
        "QUERY PLAN"
      ];
      return await accessOf(client, Plan, paramTypes);
    } finally {
      await deallocateExplained(client);
    }
  } finally {
    await client.query({ text: "RESET plan_cache_mode" });
  }
}

/**
 * Drops the statement explained, if it is there: in a transaction a failed EXPLAIN leaves it
 * prepared (PREPARE outlives a rollback), and the next explain would find the name taken.
 */
export async function deallocateExplained(client: PgClient): Promise<void> {
  const { rows } = await client.query({
    text: "SELECT 1 FROM pg_prepared_statements WHERE name = $1",
    values: [EXPLAINED],
  });
  if (rows.length > 0) await client.query({ text: `DEALLOCATE ${EXPLAINED}` });
}

async function accessOf(
  client: PgClient,
  plan: PlanNode,
  paramTypes: readonly string[],
): Promise<PlannedAccess> {
  const nodes = planNodes(plan);
  const unknown = nodes.find(
    (node) => node["Function Name"] !== undefined && (node.Schema ?? "") !== "pg_catalog",
  );
  if (unknown)
    return {
      unknown: `it calls ${unknown.Schema ?? ""}.${unknown["Function Name"]}(), whose reads its plan does not show`,
    };
  const writes = new Set<string>();
  const tables = new Map<string, PlannedTable>();
  for (const node of nodes) {
    const name = node["Relation Name"];
    if (name === undefined) continue;
    if (node["Node Type"] === "ModifyTable") writes.add(name);
    else {
      const table = { schema: node.Schema ?? "", name };
      tables.set(tableKey(table), table);
    }
  }
  const keys = await keyColumnsOf(client, [...tables.values()]);
  const reads = planReads(plan, keys, paramTypes).sort((a, b) => a.table.localeCompare(b.table));
  return { reads, writes: [...writes].sort() };
}
