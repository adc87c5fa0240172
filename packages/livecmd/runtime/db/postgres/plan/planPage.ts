import { tableKey, type TableColumns } from "../keyColumns.ts";
import { familyOf, type FilterColumn } from "./pgFilters.ts";
import type { PlanNode } from "./planNode.ts";

/**
 * A page (`ORDER BY key LIMIT n`) whose read is bounded by the last row it returned: its
 * statement returns the first `n` rows (after its OFFSET) in the order of `key` among the rows its
 * scan keeps, so when it returned `n`, no row whose key lies past the last returned row's (ties
 * excluded) is among them, nor can a change to such a row bring one in unless it moves the row
 * before that key. Read off the generic plan (a Limit straight over an index scan in the sort's
 * order, so that tied rows come in the index's order, which a change past them leaves alone), the
 * statement's ORDER BY (the Sort a plan without index scans shows) and its LIMIT (from its text:
 * EXPLAIN does not print it).
 */
export interface PlannedPage {
  /** The sort key: the first column of the ORDER BY, one of the scanned table's. */
  readonly key: FilterColumn;
  /** Sorted from the largest key down. */
  readonly descending: boolean;
  /** NULL keys come first (`NULLS FIRST`, the default of `DESC`). */
  readonly nullsFirst: boolean;
  /** Which column of each returned row holds the key, by position (the plan's output). */
  readonly column: number;
  /** The LIMIT: a parameter's value or a constant. */
  readonly limit: { readonly param: number } | { readonly constant: bigint };
}

/** The scan a page's statement reads its rows through, and the page, or why it cannot be bounded. */
export type PageFinding =
  | { readonly scan: PlanNode; readonly page: PlannedPage }
  | { readonly scan: PlanNode; readonly problem: string };

const INDEX_SCANS = new Set(["Index Scan", "Index Only Scan"]);
/** Nodes between a Limit and a scan that sort its rows (or merge sorted streams) apart from an index. */
const SORTING = new Set(["Sort", "Incremental Sort", "Gather Merge"]);

/**
 * The index scan a statement's generic plan returns a page straight from: a Limit (with no
 * subquery of its own, which a computed LIMIT would be) over one index scan; or the scan a Sort
 * under the Limit sorts apart from any index. Undefined when the plan has no Limit at its top.
 */
export function pageScan(plan: PlanNode): PageFinding | { readonly scan: PlanNode } | undefined {
  if (plan["Node Type"] !== "Limit") return undefined;
  const [child, ...others] = plan.Plans ?? [];
  if (!child || others.length > 0) return undefined;
  let below = child;
  while (SORTING.has(below["Node Type"] ?? "") && below.Plans?.length === 1)
    below = below.Plans[0]!;
  if (below["Relation Name"] === undefined) return undefined;
  if (below !== child)
    return { scan: below, problem: "sorted apart from any index: every row is read to sort them" };
  return INDEX_SCANS.has(child["Node Type"] ?? "") ? { scan: child } : undefined;
}

/**
 * The page an index scan under a Limit returns (`pageScan`), from the statement's text (`$n`
 * placeholders) and the first sort key of its plan without index scans (`sortKeys`); none when
 * it has no ORDER BY (or one by constants alone): its LIMIT takes any rows the scan keeps.
 */
export function plannedPage(
  scan: PlanNode,
  limitNode: PlanNode,
  text: string,
  sortKeys: readonly string[] | undefined,
  columns: TableColumns,
): PageFinding | undefined {
  const [first] = sortKeys ?? [];
  if (first === undefined) return undefined;
  const problem = (why: string): PageFinding => ({ scan, problem: why });
  const limit = limitOf(text);
  if (!limit) return problem("whose LIMIT livecmd cannot read off the statement");
  const sort = SORT_KEY.exec(first);
  if (!sort || identifier(sort[1]!) !== scan.Alias) return problem("sorted by an expression");
  const name = identifier(sort[2]!);
  const table = { schema: scan.Schema ?? "", name: scan["Relation Name"] ?? "" };
  const info = columns.get(tableKey(table))?.get(name);
  const family = info && familyOf(info.type);
  if (!info || !family || !info.deterministic)
    return problem(`sorted by ${name}, whose type or collation livecmd does not compare`);
  const byteOrdered = sort[3] !== undefined || info.byteOrdered;
  if (family === "text" && !byteOrdered)
    return problem(`sorted by ${name} under a collation other than C`);
  const column = (limitNode.Output ?? []).findIndex(
    (output) => output === quoted(name) || output === `${quoted(scan.Alias ?? "")}.${quoted(name)}`,
  );
  if (column < 0) return problem(`whose rows do not return the key it is sorted by (${name})`);
  const descending = sort[4] !== undefined;
  return {
    scan,
    page: {
      key: { name, type: info.type, family, byteOrdered },
      descending,
      nullsFirst: sort[5] === undefined ? descending : sort[5] === "FIRST",
      column,
      limit,
    },
  };
}

const IDENTIFIER = String.raw`(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")`;
/** A sort key as EXPLAIN (VERBOSE) prints it: `o.total`, `o.name COLLATE "C" DESC NULLS LAST`. */
const SORT_KEY = new RegExp(
  `^(${IDENTIFIER})\\.(${IDENTIFIER})( COLLATE "(?:C|POSIX)")?( DESC)?(?: NULLS (FIRST|LAST))?$`,
);
const COUNT = String.raw`(\d+|\$\d+)`;
const OFFSET = String.raw`OFFSET\s+(?:\d+|\$\d+)(?:\s+ROWS?)?`;
const FETCH = String.raw`FETCH\s+(?:FIRST|NEXT)\s+${COUNT}\s+ROWS?\s+ONLY`;
/** The LIMIT (or FETCH FIRST) that ends a statement, with its OFFSET before or after. */
const LIMIT_TAIL = new RegExp(
  String.raw`\s(?:LIMIT\s+${COUNT}(?:\s+${OFFSET})?|${OFFSET}\s+(?:LIMIT\s+${COUNT}|${FETCH})|${FETCH}(?:\s+${OFFSET})?)\s*;?\s*$`,
  "i",
);

/**
 * The LIMIT that ends `text` (the statement's own: one in a subquery would be followed by its
 * closing parenthesis), when it is a constant or a parameter; undefined in a statement with
 * comments, which could hide one.
 */
export function limitOf(text: string): PlannedPage["limit"] | undefined {
  if (text.includes("--") || text.includes("/*")) return undefined;
  const match = LIMIT_TAIL.exec(text);
  const count = match?.slice(1).find((group) => group !== undefined);
  if (count === undefined) return undefined;
  return count.startsWith("$") ? { param: Number(count.slice(1)) } : { constant: BigInt(count) };
}

function identifier(text: string): string {
  return text.startsWith('"') ? text.slice(1, -1).replaceAll('""', '"') : text;
}

/** A name as EXPLAIN prints it: bare when it may be, else in double quotes. */
function quoted(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}
