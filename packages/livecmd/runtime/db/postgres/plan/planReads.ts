import type { KeyValue } from "../../keyedAccess.ts";
import { unfollowed, type WholeReason } from "../../wholeReason.ts";
import {
  KEY_KINDS,
  tableKey,
  type ColumnInfo,
  type TableColumns,
  type KeyKind,
} from "../keyColumns.ts";
import { castFamily, familyOf, type Family, type FilterColumn } from "./pgFilters.ts";
import {
  parseCondition,
  type ColumnRef,
  type CompareOp,
  type Condition,
  type Operand,
} from "./planConditions.ts";
import { arrayElements, keysOfTexts } from "./pgKeys.ts";
import type { PageFinding, PlannedPage } from "./planPage.ts";
import { CONDITIONS, planNodes, type PlanNode } from "./planNode.ts";
import { wholeReasonOfScan } from "./scanReasons.ts";

/**
 * Where a value comes from when the statement runs: parameter `$param` (an array of them with
 * `array`), a constant, or a column of the rows another scan of the statement reads (a lookup).
 */
export type KeySource =
  | { readonly param: number; readonly array: boolean }
  | { readonly value: KeyValue }
  | { readonly lookup: Lookup };

/**
 * Values a statement reads off the rows one scan returns and looks other rows up by:
 * `column` of the rows `rows` says the scan of `relation` reads (`appointments.patient_id` of a
 * doctor's appointments). `id` tells two lookups of one statement apart.
 */
export interface Lookup {
  readonly id: string;
  readonly schema: string;
  readonly relation: string;
  /** The table as reads name it (the top of a partition tree), for messages. */
  readonly table: string;
  readonly column: string;
  readonly rows: ScanRows;
}

/** A value a filter compares with, as planned: a parameter (its type), a constant (its text and type), or a lookup. */
export type PlannedValue =
  | { readonly param: number; readonly array: boolean; readonly type: string }
  | { readonly constant: string; readonly type: string }
  | { readonly lookup: Lookup; readonly type: string };

/** A filter's test as planned: `pgFilters.ts`'s `Predicate` with its values still to bind. */
export type PlannedPredicate =
  | { readonly kind: "and" | "or"; readonly parts: readonly PlannedPredicate[] }
  | {
      readonly kind: "compare";
      readonly column: FilterColumn;
      readonly op: CompareOp;
      readonly quantifier: "one" | "any" | "all";
      readonly values: readonly PlannedValue[];
    }
  | {
      readonly kind: "like";
      readonly column: FilterColumn;
      readonly negated: boolean;
      readonly pattern: PlannedValue;
    }
  | { readonly kind: "null"; readonly column: FilterColumn; readonly negated: boolean }
  | { readonly kind: "unknown"; readonly text: string };

/** The rows one scan reads: whole (and why), by one key column, or through a filter. */
export type ScanRows =
  | { readonly whole: WholeReason }
  | { readonly keyed: Keyed }
  | { readonly filter: PlannedPredicate };

export interface Keyed {
  readonly column: string;
  readonly kind: KeyKind;
  readonly sources: readonly KeySource[];
}

/**
 * How a statement reads a table, as planned: whole (`reason`, why the plan reads it whole;
 * `because`, when livecmd will not hear of every change to it), only rows whose `column` equals
 * one of `sources`, or through a filter. A whole or filtered read with a `page` is narrowed by
 * the rows the statement returned, once it ran (`pageReads.ts`).
 */
export type PlannedRead =
  | {
      readonly table: string;
      readonly column?: undefined;
      readonly filter?: undefined;
      readonly because?: string;
      readonly reason?: WholeReason;
      readonly page?: PlannedPage;
    }
  | {
      readonly table: string;
      readonly column: string;
      readonly kind: KeyKind;
      readonly sources: readonly KeySource[];
      readonly filter?: undefined;
      readonly page?: undefined;
    }
  | {
      readonly table: string;
      readonly column?: undefined;
      readonly filter: PlannedPredicate;
      readonly page?: PlannedPage;
    };

/** Nodes that pass the rows of the one plan below them on, all of them and unchanged. */
const PASSING = new Set([
  ...["Hash", "Materialize", "Sort", "Incremental Sort", "Memoize", "Append", "Merge Append"],
  ...["Gather", "Gather Merge", "Bitmap Index Scan"],
]);
const JOINS = new Set(["Hash Join", "Merge Join", "Nested Loop"]);
/**
 * The sides of a join (0: its first plan, the outer; 1: the second) whose rows count only where
 * they meet the join's condition: an inner join's both, a left join's inner side...
 */
const JOINED_SIDES: Readonly<Record<string, readonly number[]>> = {
  Inner: [0, 1],
  Semi: [0, 1],
  "Right Semi": [0, 1],
  Left: [1],
  Anti: [1],
  Right: [0],
  "Right Anti": [0],
};

/**
 * The rows each table is read by, from a generic plan. A scan's conditions are those it applies
 * to every row it returns (ANDed), and the condition of the join it feeds when the join only
 * passes on rows that meet it (both sides of an inner or semi join, a left join's inner side...).
 * A scan reads by key when one of its conditions is an equality of a key column (`columns`:
 * each table's, with its kind of key when it has one) with parameters of the key's type,
 * constants, or a column of another scan: that scan's values when it is keyed on the same column,
 * else the values the statement reads off its rows (a foreign key looked up in a nested loop or a
 * hash join, an `IN (SELECT ...)`, a correlated subquery), which a run learns by asking
 * (`boundReads.ts` `lookedUpReads`);
 * an OR of such equalities on one column is keyed on all their values. Otherwise a scan reads
 * through a filter when its conditions compare its columns with such values in ways livecmd
 * can evaluate (`pgFilters.ts`). A table is keyed where every scan of it is. In a plan with an
 * InitPlan or a SubPlan a `$n` may be the subplan's output rather than the statement's parameter
 * (PostgreSQL 15 prints both alike), so there parameters neither key nor filter. Each scan's
 * reads are those of the table `tableOf` names for it (its partition tree's root).
 */
export function planReads(
  plan: PlanNode,
  columns: TableColumns,
  paramTypes: readonly string[],
  tableOf: (scan: PlanNode) => string,
  page?: PageFinding,
): PlannedRead[] {
  const analysis = new PlanAnalysis(plan, columns, paramTypes, tableOf);
  if (page && analysis.scans.length === 1)
    return [pagedRead(tableOf(page.scan), analysis.rows(page.scan), page)];
  const byTable = new Map<string, ScanRows[] | WholeReason>();
  // A scan that tests nothing of its own is worked out first: the other side of its join then
  // keeps its own filter and supplies the keys it is looked up by, not the other way round.
  const ordered = [...analysis.scans].sort(
    (a, b) => Number(ownConditions(b).length === 0) - Number(ownConditions(a).length === 0),
  );
  for (const scan of ordered) {
    const table = tableOf(scan);
    const rows = analysis.rows(scan);
    const earlier = byTable.get(table) ?? [];
    if (!Array.isArray(earlier)) continue;
    byTable.set(table, "whole" in rows ? rows.whole : [...earlier, rows]);
  }
  return [...byTable].flatMap(([table, rows]): PlannedRead[] =>
    Array.isArray(rows) ? readsOf(table, rows) : [{ table, reason: rows }],
  );
}

/**
 * The read of a page's scan: by key as any (its keys bound it already); else narrowed by the
 * page once it ran, or, when it cannot be, whole with the page's reason where it tests nothing.
 */
function pagedRead(table: string, rows: ScanRows, found: PageFinding): PlannedRead {
  if ("keyed" in rows) return readsOf(table, [rows])[0]!;
  if ("page" in found)
    return "filter" in rows
      ? { table, filter: rows.filter, page: found.page }
      : { table, reason: rows.whole, page: found.page };
  return "filter" in rows
    ? { table, filter: rows.filter }
    : { table, reason: { kind: "page", why: found.problem } };
}

/** One read per key column, every source of it; one per filter. */
function readsOf(table: string, rows: readonly ScanRows[]): PlannedRead[] {
  const byColumn = new Map<string, { kind: KeyKind; sources: KeySource[] }>();
  const filters: PlannedRead[] = [];
  for (const scan of rows) {
    if ("filter" in scan) filters.push({ table, filter: scan.filter });
    if (!("keyed" in scan)) continue;
    const { column, kind, sources } = scan.keyed;
    const entry = byColumn.get(column) ?? { kind, sources: [] };
    entry.sources.push(...sources);
    byColumn.set(column, entry);
  }
  const keyed = [...byColumn].map(([column, { kind, sources }]): PlannedRead => ({
    table,
    column,
    kind,
    sources,
  }));
  return [...keyed, ...filters];
}

class PlanAnalysis {
  /** Every scan of a table (what a ModifyTable writes is its own scan's). */
  readonly scans: PlanNode[];
  /** Scans by the alias the plan's conditions name them by; null when two share one. */
  readonly #byAlias = new Map<string, PlanNode | null>();
  readonly #parents = new Map<PlanNode, PlanNode>();
  readonly #paramsKnown: boolean;
  readonly #rows = new Map<PlanNode, ScanRows>();

  constructor(
    plan: PlanNode,
    private readonly columns: TableColumns,
    private readonly paramTypes: readonly string[],
    private readonly tableOf: (scan: PlanNode) => string,
  ) {
    const nodes = planNodes(plan);
    for (const node of nodes) for (const child of node.Plans ?? []) this.#parents.set(child, node);
    this.scans = nodes.filter(
      (node) => node["Relation Name"] !== undefined && node["Node Type"] !== "ModifyTable",
    );
    for (const scan of this.scans)
      if (scan.Alias !== undefined)
        this.#byAlias.set(scan.Alias, this.#byAlias.has(scan.Alias) ? null : scan);
    this.#paramsKnown = !nodes.some((node) => node["Subplan Name"] !== undefined);
  }

  /** The rows `scan` returns; memoized, and whole while being worked out. */
  rows(scan: PlanNode): ScanRows {
    const memo = this.#rows.get(scan);
    if (memo) return memo;
    this.#rows.set(scan, WORKING);
    const fields = CONDITIONS[scan["Node Type"] ?? ""];
    let rows: ScanRows;
    if (!fields) rows = { whole: wholeReasonOfScan(scan, this.#paramsKnown) };
    else {
      const conditions = [...ownConditions(scan), ...this.#joinConditions(scan)];
      const all: Condition = { kind: "and", parts: conditions };
      const keyed = this.#conditionKey(all, scan);
      const predicate = keyed ? undefined : this.#predicate(all, scan, false);
      rows = keyed
        ? { keyed }
        : predicate && testsSomething(predicate)
          ? { filter: predicate }
          : { whole: wholeReasonOfScan(scan, this.#paramsKnown) };
    }
    this.#rows.set(scan, rows);
    return rows;
  }

  /**
   * The condition of the join `scan` feeds (through nodes that pass its rows on), when the join
   * passes on only the rows of its side that meet it.
   */
  #joinConditions(scan: PlanNode): Condition[] {
    let child = scan;
    let parent = this.#parents.get(child);
    while (parent && PASSING.has(parent["Node Type"] ?? "")) {
      child = parent;
      parent = this.#parents.get(child);
    }
    if (!parent || !JOINS.has(parent["Node Type"] ?? "")) return [];
    const side = parent.Plans?.indexOf(child) ?? -1;
    if (!(JOINED_SIDES[parent["Join Type"] ?? ""] ?? []).includes(side)) return [];
    const inner = side === 0 && parent["Node Type"] === "Nested Loop" && parent.Plans?.[1];
    return [
      ...(["Hash Cond", "Merge Cond", "Join Filter"] as const).flatMap((field) =>
        parent![field] === undefined ? [] : [parseCondition(parent![field])],
      ),
      // A nested loop looks its inner rows up by the outer row's columns (`p.id = c.parent_id`
      // on the inner index scan): an outer row counts only where one of them meets them.
      ...(inner ? ownConditions(passedThrough(inner)) : []),
    ];
  }

  #conditionKey(condition: Condition, scan: PlanNode): Keyed | undefined {
    if (condition.kind === "and")
      for (const part of condition.parts) {
        const keyed = this.#conditionKey(part, scan);
        if (keyed) return keyed;
      }
    if (condition.kind === "or") return this.#unionKey(condition.parts, scan);
    const equality = this.#equality(condition, scan);
    if (!equality) return undefined;
    const kind = this.#info(equality.column, scan)?.key;
    if (kind === undefined || !keyCast(equality.column, kind)) return undefined;
    const sources: KeySource[] = [];
    for (const operand of equality.values) {
      const found = this.#sources(operand, kind);
      if (!found) return undefined;
      sources.push(...found);
    }
    return { column: equality.column.column, kind, sources };
  }

  /** An equality of a column of `scan` with values, either way round (`a.patient_id = p.id` keys p too). */
  #equality(
    condition: Condition,
    scan: PlanNode,
  ): { column: ColumnRef; values: readonly Operand[] } | undefined {
    if (condition.kind !== "compare" || condition.op !== "=" || condition.quantifier === "all")
      return undefined;
    if (condition.column.alias === scan.Alias) return condition;
    const [other] = condition.values;
    if (condition.values.length === 1 && other?.kind === "column" && other.ref.alias === scan.Alias)
      return { column: other.ref, values: [{ kind: "column", ref: condition.column }] };
    return undefined;
  }

  /** An OR keys when every part keys on the same column. */
  #unionKey(parts: readonly Condition[], scan: PlanNode): Keyed | undefined {
    const keyed = parts.map((part) => this.#conditionKey(part, scan));
    const [first] = keyed;
    if (!first || !keyed.every((part) => part?.column === first.column)) return undefined;
    return { ...first, sources: keyed.flatMap((part) => part!.sources) };
  }

  /** The column `ref` names when it is one of `scan`'s. */
  #info(ref: ColumnRef, scan: PlanNode): ColumnInfo | undefined {
    if (ref.alias !== scan.Alias) return undefined;
    const table = { schema: scan.Schema ?? "", name: scan["Relation Name"] ?? "" };
    return this.columns.get(tableKey(table))?.get(ref.column);
  }

  #sources(operand: Operand, kind: KeyKind): readonly KeySource[] | undefined {
    if (operand.kind === "constant") return constantKeys(operand.text, operand.type, kind);
    if (operand.kind === "param") {
      const type = this.#paramType(operand);
      return type !== undefined && KEY_KINDS[type] === kind
        ? [{ param: operand.index, array: operand.array }]
        : undefined;
    }
    const other = this.#supplier(operand.ref);
    if (!other || this.#info(operand.ref, other)?.key !== kind || !keyCast(operand.ref, kind))
      return undefined;
    // Another scan's column: that scan's values when it is keyed on it, else the values read off its rows.
    const rows = this.rows(other);
    if ("keyed" in rows && rows.keyed.column === operand.ref.column) return rows.keyed.sources;
    return [{ lookup: this.#lookup(other, operand.ref.column) }];
  }

  /**
   * The scan whose rows may supply `ref`'s values: not one whose rows are being worked out,
   * which would key the two sides of a join by each other (a hash join's) and leave the rows
   * that neither side's values reach unwatched.
   */
  #supplier(ref: ColumnRef): PlanNode | undefined {
    const other = this.#byAlias.get(ref.alias);
    return other && this.#rows.get(other) !== WORKING ? other : undefined;
  }

  #lookup(scan: PlanNode, column: string): Lookup {
    return {
      id: `${scan.Alias}.${column}`,
      schema: scan.Schema ?? "",
      relation: scan["Relation Name"] ?? "",
      table: this.tableOf(scan),
      column,
      rows: this.rows(scan),
    };
  }

  /** The type of a parameter as the statement declares it (an array's element type for `= ANY`). */
  #paramType(operand: Extract<Operand, { kind: "param" }>): string | undefined {
    const type = this.#paramsKnown ? this.paramTypes[operand.index - 1] : undefined;
    return operand.array ? type?.match(/^(.*)\[\]$/)?.[1] : type;
  }

  /** `condition` (negated when `negated`) as a test of `scan`'s rows, NOT pushed down to each test. */
  #predicate(condition: Condition, scan: PlanNode, negated: boolean): PlannedPredicate {
    switch (condition.kind) {
      case "and":
      case "or": {
        const kind = (condition.kind === "and") !== negated ? "and" : "or";
        return { kind, parts: condition.parts.map((part) => this.#predicate(part, scan, negated)) };
      }
      case "not":
        return this.#predicate(condition.part, scan, !negated);
      case "compare":
        return this.#comparison(condition, scan, negated);
      case "like": {
        const column = this.#filterColumn(condition.column, scan);
        const pattern = column && this.#value(condition.pattern, "text");
        return column?.family === "text" && pattern
          ? { kind: "like", column, negated: condition.negated !== negated, pattern }
          : UNTESTED;
      }
      case "null": {
        const column = this.#filterColumn(condition.column, scan);
        return column ? { kind: "null", column, negated: condition.negated !== negated } : UNTESTED;
      }
      case "true": {
        const column = this.#filterColumn(condition.column, scan);
        return column?.family === "boolean"
          ? {
              kind: "compare",
              column,
              op: "=",
              quantifier: "one",
              values: [{ constant: String(!negated), type: "boolean" }],
            }
          : UNTESTED;
      }
      default:
        return UNTESTED;
    }
  }

  #comparison(
    condition: Extract<Condition, { kind: "compare" }>,
    scan: PlanNode,
    negated: boolean,
  ): PlannedPredicate {
    const equality = this.#equality(condition, scan);
    const ref = equality?.column ?? condition.column;
    const operands = equality?.values ?? condition.values;
    const column = this.#filterColumn(ref, scan);
    if (!column) return UNTESTED;
    const values: PlannedValue[] = [];
    for (const operand of operands) {
      const value = this.#value(operand, column.family);
      if (!value) return UNTESTED;
      values.push(value);
    }
    return negated
      ? {
          kind: "compare",
          column,
          op: NEGATED[condition.op],
          quantifier:
            condition.quantifier === "any" ? "all" : condition.quantifier === "all" ? "any" : "one",
          values,
        }
      : { kind: "compare", column, op: condition.op, quantifier: condition.quantifier, values };
  }

  /** A column of `scan` as a filter compares it, when livecmd compares its type (after a cast that keeps its values). */
  #filterColumn(ref: ColumnRef, scan: PlanNode): FilterColumn | undefined {
    const info = this.#info(ref, scan);
    if (!info?.deterministic) return undefined;
    const family = ref.cast === undefined ? familyOf(info.type) : castFamily(info.type, ref.cast);
    return family && { name: ref.column, type: info.type, family, byteOrdered: info.byteOrdered };
  }

  /** A value compared in `family`: a parameter or constant of its family, or another scan's column of it. */
  #value(operand: Operand, family: Family): PlannedValue | undefined {
    if (operand.kind === "param") {
      const type = this.#paramType(operand);
      return type !== undefined && familyOf(type) === family
        ? { param: operand.index, array: operand.array, type }
        : undefined;
    }
    if (operand.kind === "constant") {
      const type = operand.type.replace(/\[\]$/, "");
      return familyOf(type) === family ? { constant: operand.text, type: operand.type } : undefined;
    }
    const other = this.#supplier(operand.ref);
    const column = other && this.#filterColumn(operand.ref, other);
    return column?.family === family
      ? { lookup: this.#lookup(other!, operand.ref.column), type: column.type }
      : undefined;
  }
}

/** The conditions a scan applies to every row it returns, as parsed (none for a scan livecmd does not read). */
function ownConditions(scan: PlanNode): Condition[] {
  return (CONDITIONS[scan["Node Type"] ?? ""] ?? []).flatMap((field) =>
    scan[field] === undefined ? [] : [parseCondition(scan[field])],
  );
}

/** The node below the ones that pass its rows on unchanged (a Memoize over an index scan). */
function passedThrough(node: PlanNode): PlanNode {
  let below = node;
  while (PASSING.has(below["Node Type"] ?? "") && below.Plans?.length === 1)
    below = below.Plans[0]!;
  return below;
}

/** The rows of a scan while they are being worked out. */
const WORKING: ScanRows = { whole: unfollowed("its keys come from its own rows") };

const UNTESTED: PlannedPredicate = { kind: "unknown", text: "a condition livecmd cannot test" };

const NEGATED: Readonly<Record<CompareOp, CompareOp>> = {
  "=": "<>",
  "<>": "=",
  "<": ">=",
  "<=": ">",
  ">": "<=",
  ">=": "<",
};

/** Whether a predicate holds a test livecmd can evaluate (else the scan is as good as whole). */
function testsSomething(predicate: PlannedPredicate): boolean {
  if (predicate.kind === "and" || predicate.kind === "or")
    return predicate.parts.some(testsSomething);
  return predicate.kind !== "unknown";
}

/** A key column keys cast only to text, and only when it is text. */
function keyCast(ref: ColumnRef, kind: KeyKind): boolean {
  return ref.cast === undefined || (ref.cast === "text" && kind === "text");
}

/** A constant's keys: one, or an array's elements; undefined when one cannot be told. */
function constantKeys(text: string, type: string, kind: KeyKind): KeySource[] | undefined {
  const array = type.endsWith("[]");
  if (KEY_KINDS[array ? type.slice(0, -2) : type] !== kind) return undefined;
  return keysOfTexts(array ? arrayElements(text) : [text], kind)?.map((value) => ({ value }));
}
