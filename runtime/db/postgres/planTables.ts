import type { PgClient } from "./pgShapes.ts";

/** The tables one SQL statement reads and writes. */
export interface TableAccess {
  reads: readonly string[];
  writes: readonly string[];
}

/** A statement's tables, or why they cannot be known (then it counts as reading every table). */
export type PlannedAccess = TableAccess | { unknown: string };

interface PlanNode {
  "Node Type"?: string;
  Operation?: string;
  "Relation Name"?: string;
  "Function Name"?: string;
  Schema?: string;
  Plans?: PlanNode[];
}

const EXPLAINED = "livecmd_explain";

/**
 * The tables a statement reads and writes, from PostgreSQL's own plan of it: scans name the
 * tables read (a view's base tables), ModifyTable the one written. The plan is the generic one
 * (parameters left as parameters, `plan_cache_mode = force_generic_plan`, since PostgreSQL 15
 * has no EXPLAIN GENERIC_PLAN), because a plan for some values can drop a branch that other
 * values need, and the answer is cached per statement text. A scan of a function outside
 * pg_catalog may read anything, so that statement reads every table.
 */
export async function explainTables(client: PgClient, sql: string): Promise<PlannedAccess> {
  await client.query({ text: "SET plan_cache_mode = force_generic_plan" });
  try {
    await client.query({ text: `PREPARE ${EXPLAINED} AS ${sql}` });
    try {
      const { rows } = await client.query({
        text: "SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = $1",
        values: [EXPLAINED],
      });
      const count = Number((rows[0] as { n: number }).n);
      const nulls = Array.from({ length: count }, () => "NULL").join(", ");
      const explained = await client.query({
        text: `EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE ${EXPLAINED}${count > 0 ? `(${nulls})` : ""}`,
      });
      const [{ Plan }] = (explained.rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })[
        "QUERY PLAN"
      ];
      return tablesOf(Plan);
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

function tablesOf(plan: PlanNode): PlannedAccess {
  const reads = new Set<string>();
  const writes = new Set<string>();
  const pending = [plan];
  for (let node = pending.pop(); node; node = pending.pop()) {
    pending.push(...(node.Plans ?? []));
    const schema = node.Schema ?? "";
    if (node["Function Name"] !== undefined && schema !== "pg_catalog")
      return {
        unknown: `it calls ${schema}.${node["Function Name"]}(), whose reads its plan does not show`,
      };
    const table = node["Relation Name"];
    if (table === undefined) continue;
    (node["Node Type"] === "ModifyTable" ? writes : reads).add(table);
  }
  return { reads: [...reads].sort(), writes: [...writes].sort() };
}
