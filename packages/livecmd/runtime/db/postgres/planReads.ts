import type { KeyValue } from "../keyedAccess.ts";
import type { WholeReason } from "../wholeReason.ts";
import { KEY_KINDS, tableKey, type KeyColumns, type KeyKind } from "./keyColumns.ts";
import { parseCondition, type ColumnRef, type Condition, type Operand } from "./planConditions.ts";
import { arrayElements, keysOfTexts } from "./pgKeys.ts";
import { wholeReasonOfScan } from "./scanReasons.ts";

/** A node of `EXPLAIN (FORMAT JSON, VERBOSE)`, the fields livecmd reads. */
export interface PlanNode {
  "Node Type"?: string;
  "Relation Name"?: string;
  "Function Name"?: string;
  "Subplan Name"?: string;
  Schema?: string;
  Alias?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** Where a key value comes from when the statement runs: parameter `$param` (an array of them with `array`), or a constant. */
export type KeySource =
  { readonly param: number; readonly array: boolean } | { readonly value: KeyValue };

/**
 * How a statement reads a table, as planned: whole (`because`, when livecmd will not hear of
 * every change to it; `reason`, why the plan reads it whole), or only rows whose `column` equals
 * one of `sources`.
 */
export type PlannedRead =
  | {
      readonly table: string;
      readonly column?: undefined;
      readonly because?: string;
      readonly reason?: WholeReason;
    }
  | {
      readonly table: string;
      readonly column: string;
      readonly kind: KeyKind;
      readonly sources: readonly KeySource[];
    };

interface Keyed {
  readonly column: string;
  readonly kind: KeyKind;
  readonly sources: readonly KeySource[];
}

/**
 * The conditions each kind of scan applies to every row it returns. Other scans of a table
 * (TID, sample, foreign...) read it whole.
 */
export const CONDITIONS: Readonly<
  Record<string, readonly ("Index Cond" | "Recheck Cond" | "Filter")[]>
> = {
  "Seq Scan": ["Filter"],
  "Index Scan": ["Index Cond", "Filter"],
  "Index Only Scan": ["Index Cond", "Filter"],
  "Bitmap Heap Scan": ["Recheck Cond", "Filter"],
};

/**
 * The rows each table is read by, from a generic plan: a scan reads a table by key when one of
 * the conditions it applies to every row it returns (ANDed) is an equality of a key column
 * (`keys`: the columns the change feed carries) with parameters of the key's type, constants, or
 * the same key column of another scan that is itself keyed on it (the inner side of a join
 * looked up by the outer side's key, a correlated subquery); an OR of such equalities on one
 * column is keyed on all their values. A table is keyed when every scan of it is. In a plan with
 * an InitPlan or a SubPlan a `$n` may be the subplan's output rather than the statement's
 * parameter (PostgreSQL 15 prints both alike), so there only constants key. Each scan's reads
 * are those of the table `tableOf` names for it (its partition tree's root).
 */
export function planReads(
  plan: PlanNode,
  keys: KeyColumns,
  paramTypes: readonly string[],
  tableOf: (scan: PlanNode) => string,
): PlannedRead[] {
  const analysis = new PlanAnalysis(plan, keys, paramTypes);
  const byTable = new Map<string, Keyed[] | "whole">();
  const reasons = new Map<string, WholeReason>();
  for (const scan of analysis.scans) {
    const table = tableOf(scan);
    const keyed = analysis.keyed(scan);
    const earlier = byTable.get(table) ?? [];
    byTable.set(table, earlier === "whole" || keyed === "whole" ? "whole" : [...earlier, keyed]);
    if (keyed === "whole" && !reasons.has(table))
      reasons.set(table, wholeReasonOfScan(scan, analysis.paramsKnown));
  }
  return [...byTable].flatMap(([table, keyed]): PlannedRead[] =>
    keyed === "whole" ? [{ table, reason: reasons.get(table)! }] : mergeByColumn(table, keyed),
  );
}

/** Every node below and including `plan`. */
export function planNodes(plan: PlanNode): PlanNode[] {
  const nodes: PlanNode[] = [];
  const pending = [plan];
  for (let node = pending.pop(); node; node = pending.pop()) {
    nodes.push(node);
    pending.push(...(node.Plans ?? []));
  }
  return nodes;
}

function mergeByColumn(table: string, keyed: readonly Keyed[]): PlannedRead[] {
  const byColumn = new Map<string, { kind: KeyKind; sources: KeySource[] }>();
  for (const { column, kind, sources } of keyed) {
    const entry = byColumn.get(column) ?? { kind, sources: [] };
    entry.sources.push(...sources);
    byColumn.set(column, entry);
  }
  return [...byColumn].map(([column, { kind, sources }]) => ({ table, column, kind, sources }));
}

class PlanAnalysis {
  /** Every scan of a table (what a ModifyTable writes is its own scan's). */
  readonly scans: PlanNode[];
  /** Scans by the alias the plan's conditions name them by; null when two share one. */
  readonly #byAlias = new Map<string, PlanNode | null>();
  /** False in a plan with a subplan, whose output prints as `$n` like a parameter. */
  readonly paramsKnown: boolean;
  readonly #keyed = new Map<PlanNode, Keyed | "whole">();

  constructor(
    plan: PlanNode,
    private readonly keys: KeyColumns,
    private readonly paramTypes: readonly string[],
  ) {
    const nodes = planNodes(plan);
    this.scans = nodes.filter(
      (node) => node["Relation Name"] !== undefined && node["Node Type"] !== "ModifyTable",
    );
    for (const scan of this.scans)
      if (scan.Alias !== undefined)
        this.#byAlias.set(scan.Alias, this.#byAlias.has(scan.Alias) ? null : scan);
    this.paramsKnown = !nodes.some((node) => node["Subplan Name"] !== undefined);
  }

  /** The key every row `scan` returns has; memoized, and "whole" while being worked out. */
  keyed(scan: PlanNode): Keyed | "whole" {
    const memo = this.#keyed.get(scan);
    if (memo) return memo;
    this.#keyed.set(scan, "whole");
    const conditions = (CONDITIONS[scan["Node Type"] ?? ""] ?? []).flatMap((field) => {
      const text = scan[field];
      return text === undefined ? [] : [parseCondition(text)];
    });
    const keyed = this.#conditionKey({ kind: "and", parts: conditions }, scan) ?? "whole";
    this.#keyed.set(scan, keyed);
    return keyed;
  }

  #conditionKey(condition: Condition, scan: PlanNode): Keyed | undefined {
    if (condition.kind === "and")
      for (const part of condition.parts) {
        const keyed = this.#conditionKey(part, scan);
        if (keyed) return keyed;
      }
    if (condition.kind === "or") return this.#unionKey(condition.parts, scan);
    if (condition.kind !== "equals") return undefined;
    const kind = this.#columnKind(condition.column, scan);
    if (kind === undefined) return undefined;
    const sources: KeySource[] = [];
    for (const operand of condition.values) {
      const found = this.#sources(operand, kind);
      if (!found) return undefined;
      sources.push(...found);
    }
    return { column: condition.column.column, kind, sources };
  }

  /** An OR keys when every part keys on the same column. */
  #unionKey(parts: readonly Condition[], scan: PlanNode): Keyed | undefined {
    const keyed = parts.map((part) => this.#conditionKey(part, scan));
    const [first] = keyed;
    if (!first || !keyed.every((part) => part?.column === first.column)) return undefined;
    return { ...first, sources: keyed.flatMap((part) => part!.sources) };
  }

  /** The kind of key `ref` is when it names a key column of `scan` (cast to text only when it is text). */
  #columnKind(ref: ColumnRef, scan: PlanNode): KeyKind | undefined {
    if (ref.alias !== scan.Alias) return undefined;
    const table = { schema: scan.Schema ?? "", name: scan["Relation Name"] ?? "" };
    const kind = this.keys.get(tableKey(table))?.get(ref.column);
    return ref.cast === undefined || (ref.cast === "text" && kind === "text") ? kind : undefined;
  }

  #sources(operand: Operand, kind: KeyKind): readonly KeySource[] | undefined {
    if (operand.kind === "constant") return constantKeys(operand.text, operand.type, kind);
    if (operand.kind === "param") {
      const type = this.paramsKnown ? this.paramTypes[operand.index - 1] : undefined;
      const element = operand.array ? type?.match(/^(.*)\[\]$/)?.[1] : type;
      return element !== undefined && KEY_KINDS[element] === kind
        ? [{ param: operand.index, array: operand.array }]
        : undefined;
    }
    // Another scan's column: the values that scan's rows hold there, when it is keyed on it.
    const other = this.#byAlias.get(operand.ref.alias);
    const keyed = other && this.keyed(other);
    if (!keyed || keyed === "whole" || keyed.column !== operand.ref.column) return undefined;
    return this.#columnKind(operand.ref, other) === kind ? keyed.sources : undefined;
  }
}

/** A constant's keys: one, or an array's elements; undefined when one cannot be told. */
function constantKeys(text: string, type: string, kind: KeyKind): KeySource[] | undefined {
  const array = type.endsWith("[]");
  if (KEY_KINDS[array ? type.slice(0, -2) : type] !== kind) return undefined;
  return keysOfTexts(array ? arrayElements(text) : [text], kind)?.map((value) => ({ value }));
}
