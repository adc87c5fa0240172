import { byCodeUnit } from "../../../text/byCodeUnit.ts";
import { unfollowed } from "../../wholeReason.ts";
import { callsRead } from "./functionReads.ts";
import { columnsOf, tableKey, type PlannedTable } from "../keyColumns.ts";
import type { PgClient } from "../pgLibrary.ts";
import { planCalls } from "./planCalls.ts";
import { pageScan, plannedPage } from "./planPage.ts";
import { planNodes, type PlanNode } from "./planNode.ts";
import { planReads, type PlannedRead } from "./planReads.ts";
import { relationsOf, type Relations } from "./relationRoots.ts";

/** How one SQL statement reads its tables (by key or whole), and the tables it writes. */
export interface TableAccess {
  reads: readonly PlannedRead[];
  writes: readonly string[];
}

/** A statement's tables, or why they cannot be known (then it counts as reading every table). */
export type PlannedAccess = TableAccess | { unknown: string };

export interface ExplainOptions {
  /** Functions outside the catalog that read no table (`name` or `schema.name`). */
  readonly pureFunctions?: ReadonlySet<string>;
}

const EXPLAINED = "livecmd_explain";

/** Why a read of a relation of this kind is not what the change feed will tell of. */
const UNHEARD: Readonly<Record<string, string>> = {
  f: "a foreign table: livecmd is never told of its changes",
};
const UNHEARD_REFRESH =
  "a materialized view: its REFRESH is heard only through livecmd's DDL event trigger, which only a superuser can install (livecmd db install as one)";

/**
 * The tables a statement reads and writes, from PostgreSQL's own plan of it: scans name the
 * tables read (a view's base tables) and the rows they read (`planReads.ts`), ModifyTable the
 * one written; each as the change feed names it, the top of its partition or inheritance tree.
 * The plan is the generic one (parameters left as parameters,
 * `plan_cache_mode = force_generic_plan`, since PostgreSQL 15 has no EXPLAIN GENERIC_PLAN), with
 * partition pruning off, because a plan for some values can drop a branch or a partition that
 * other values need; the answer is cached per statement text. The functions a plan calls
 * anywhere may read any table (`functionReads.ts`), but for SQL functions of one statement,
 * whose bodies are planned in turn and read whole.
 */
export function explainTables(
  client: PgClient,
  sql: string,
  options: ExplainOptions = {},
): Promise<PlannedAccess> {
  return accessOf(client, sql, undefined, {
    pure: options.pureFunctions ?? new Set(),
    calling: [],
  });
}

interface Explaining {
  readonly pure: ReadonlySet<string>;
  /** The function bodies being planned, outermost first: a recursive call reads nothing more. */
  readonly calling: readonly number[];
}

async function accessOf(
  client: PgClient,
  sql: string,
  argTypes: readonly string[] | undefined,
  explaining: Explaining,
): Promise<PlannedAccess> {
  // A page is the statement's own (a function body's rows are not returned to the app).
  const { plan, paramTypes, sortKeys } = await explained(client, sql, argTypes, !argTypes);
  const nodes = planNodes(plan);
  const calls = await callsRead(client, planCalls(nodes), explaining.pure);
  if ("unknown" in calls) return calls;
  const bodyReads: PlannedRead[] = [];
  for (const called of calls.bodies) {
    if (explaining.calling.includes(called.oid)) continue;
    const body = await accessOf(client, called.statement!, called.argTypes, {
      ...explaining,
      calling: [...explaining.calling, called.oid],
    }).catch((error: Error) => {
      throw new Error(`planning the body of ${called.schema}.${called.name}(): ${error.message}`);
    });
    if ("unknown" in body)
      return { unknown: `it calls ${called.schema}.${called.name}(), and ${body.unknown}` };
    // Its arguments are not known here: what the body reads by key or filter, it reads whole.
    bodyReads.push(
      ...body.reads.map((read) =>
        read.column === undefined && read.filter === undefined
          ? read
          : {
              table: read.table,
              reason: unfollowed(`${called.schema}.${called.name}() reads it by its arguments`),
            },
      ),
    );
  }
  const page = argTypes ? undefined : { text: sql, sortKeys };
  return tablesOf(client, plan, nodes, paramTypes, bodyReads, page);
}

async function tablesOf(
  client: PgClient,
  plan: PlanNode,
  nodes: readonly PlanNode[],
  paramTypes: readonly string[],
  bodyReads: readonly PlannedRead[],
  page: { text: string; sortKeys: readonly string[] | undefined } | undefined,
): Promise<PlannedAccess> {
  const named = new Map<string, PlannedTable>();
  for (const node of nodes)
    if (node["Relation Name"] !== undefined) {
      const table = { schema: node.Schema ?? "", name: node["Relation Name"] };
      named.set(tableKey(table), table);
    }
  const relations = await relationsOf(client, [...named.values()]);
  const rootOf = (node: PlanNode) =>
    relations.byKey.get(tableKey({ schema: node.Schema ?? "", name: node["Relation Name"]! }))
      ?.root;
  const orphan = nodes.find(
    (node) => node["Relation Name"] !== undefined && rootOf(node) === undefined,
  );
  if (orphan)
    return {
      unknown: `${orphan.Schema}.${orphan["Relation Name"]} inherits from more than one table, so no one table stands for its changes`,
    };
  const writes = new Set(
    nodes.filter((node) => node["Node Type"] === "ModifyTable").map((node) => rootOf(node)!),
  );
  const columns = await columnsOf(client, [...named.values()]);
  const found = page && pageScan(plan);
  const paged =
    found && "problem" in found
      ? found
      : found && page && plannedPage(found.scan, plan, page.text, page.sortKeys, columns);
  const reads = [
    ...planReads(plan, columns, paramTypes, (node) => rootOf(node)!, paged),
    ...bodyReads,
  ];
  return { reads: unheardMarked(mergedWhole(reads), relations), writes: [...writes].sort() };
}

/** Whole reads of one table stand once, and for every keyed or filtered read of it. */
function mergedWhole(reads: readonly PlannedRead[]): PlannedRead[] {
  const isWhole = (read: PlannedRead) => read.column === undefined && read.filter === undefined;
  const whole = new Map<string, PlannedRead>();
  for (const read of reads)
    if (isWhole(read) && !whole.has(read.table)) whole.set(read.table, read);
  const keyed = reads.filter((read) => !isWhole(read) && !whole.has(read.table));
  return [...whole.values(), ...keyed].sort((a, b) => byCodeUnit(a.table, b.table));
}

/** A read of a relation the change feed never tells of is whole, and says why. */
function unheardMarked(reads: readonly PlannedRead[], relations: Relations): PlannedRead[] {
  const because = new Map<string, string>();
  for (const { root, kind } of relations.byKey.values()) {
    const why = kind === "m" && !relations.ddlHeard ? UNHEARD_REFRESH : UNHEARD[kind];
    if (why) because.set(root!, why);
  }
  const marked = reads.filter((read) => !because.has(read.table));
  for (const [table, why] of because)
    if (reads.some((read) => read.table === table)) marked.push({ table, because: why });
  return marked.sort((a, b) => byCodeUnit(a.table, b.table));
}

/**
 * The generic plan of `sql` (every plan, when rules make it several) and its parameters' types;
 * when `pages` and the plan returns a page straight from an index scan (`pageScan`), the sort
 * keys of its plan without index scans: what its ORDER BY sorts by, which EXPLAIN prints only
 * where a Sort does it (none: no ORDER BY, or one by constants alone).
 */
async function explained(
  client: PgClient,
  sql: string,
  argTypes: readonly string[] | undefined,
  pages: boolean,
): Promise<{ plan: PlanNode; paramTypes: string[]; sortKeys?: readonly string[] }> {
  await client.query({ text: "SET plan_cache_mode = force_generic_plan" });
  await client.query({ text: "SET enable_partition_pruning = off" });
  try {
    const typed = argTypes?.length ? ` (${argTypes.join(", ")})` : "";
    const prepare = `PREPARE ${EXPLAINED}${typed} AS ${sql}`;
    await client.query({ text: prepare });
    try {
      const { rows } = await client.query({
        text: "SELECT array_to_json(parameter_types::text[]) AS types FROM pg_prepared_statements WHERE name = $1",
        values: [EXPLAINED],
      });
      const paramTypes = (rows[0] as { types: string[] }).types;
      const plan = await explainPrepared(client, paramTypes);
      const found = pages ? pageScan(plan) : undefined;
      if (!found || "problem" in found) return { plan, paramTypes };
      // A prepared statement keeps its generic plan: planned again, with index scans off.
      await deallocateExplained(client);
      for (const scan of INDEX_SCAN_SETTINGS) await client.query({ text: `SET ${scan} = off` });
      try {
        await client.query({ text: prepare });
        const sorted = planNodes(await explainPrepared(client, paramTypes)).find(
          (node) => node["Sort Key"] !== undefined,
        );
        return { plan, paramTypes, ...(sorted && { sortKeys: sorted["Sort Key"] }) };
      } finally {
        for (const scan of INDEX_SCAN_SETTINGS) await client.query({ text: `RESET ${scan}` });
      }
    } finally {
      await deallocateExplained(client);
    }
  } finally {
    await client.query({ text: "RESET enable_partition_pruning" });
    await client.query({ text: "RESET plan_cache_mode" });
  }
}

/** The planner's settings for scans through an index. */
const INDEX_SCAN_SETTINGS = ["enable_indexscan", "enable_indexonlyscan", "enable_bitmapscan"];

async function explainPrepared(client: PgClient, paramTypes: readonly string[]): Promise<PlanNode> {
  const nulls = paramTypes.map(() => "NULL").join(", ");
  const { rows } = await client.query({
    text: `EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE ${EXPLAINED}${nulls ? `(${nulls})` : ""}`,
  });
  const plans = (rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"].map(
    ({ Plan }) => Plan,
  );
  return plans.length === 1 ? plans[0]! : { Plans: plans };
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

/**
 * What `text` reads, explained on `client`: in the app's transaction (`inTransaction`) within a
 * savepoint, so that a failure leaves the transaction as it was.
 */
export async function explainStatement(
  client: PgClient,
  text: string,
  options: ExplainOptions,
  inTransaction: boolean,
): Promise<PlannedAccess> {
  if (!inTransaction) return explainTables(client, text, options);
  await client.query({ text: "SAVEPOINT livecmd_explain" });
  try {
    const access = await explainTables(client, text, options);
    await client.query({ text: "RELEASE SAVEPOINT livecmd_explain" });
    return access;
  } catch (error) {
    await client.query({ text: "ROLLBACK TO SAVEPOINT livecmd_explain" });
    await deallocateExplained(client);
    throw error;
  }
}
