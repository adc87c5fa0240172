import type { ScanFilter, WholeReason } from "../../wholeReason.ts";
import { CONDITIONS, type PlanNode } from "./planNode.ts";

/** The operators EXPLAIN prints in conditions, and what each tells of a scan that reads whole. */
const OPERATORS: readonly {
  text: string;
  means: "match" | "range" | "equality" | "filter";
  match?: ScanFilter["match"];
}[] = [
  { text: " ~~* ", means: "match", match: "ILIKE" },
  { text: " !~~* ", means: "match", match: "ILIKE" },
  { text: " ~~ ", means: "match", match: "LIKE" },
  { text: " !~~ ", means: "match", match: "LIKE" },
  { text: " ~* ", means: "match", match: "REGEXP" },
  { text: " ~ ", means: "match", match: "REGEXP" },
  ...[" >= ", " <= ", " > ", " < "].map((text) => ({ text, means: "range" as const })),
  { text: " = ", means: "equality" },
  { text: " <> ", means: "filter" },
];

const IDENTIFIER = String.raw`(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")`;
const COLUMN = new RegExp(`${IDENTIFIER}\\.(${IDENTIFIER})`, "g");

/**
 * Why `scan` reads its table whole, from the conditions `planReads` found nothing to key on: none
 * (every row), a pattern match or another filter on a column, a range of an indexed column, an
 * equality livecmd does not key on, or a kind of scan it does not read. `paramsKnown` false: the
 * plan has a subplan, whose output prints as `$n` too.
 */
export function wholeReasonOfScan(scan: PlanNode, paramsKnown: boolean): WholeReason {
  const type = scan["Node Type"] ?? "";
  const fields = CONDITIONS[type];
  if (!fields) return { kind: "unknown", what: `a ${type}, which livecmd reads as every row` };
  const conditions = fields.flatMap((field) => {
    const text = scan[field];
    return text === undefined ? [] : [{ field, text }];
  });
  if (conditions.length === 0) return { kind: "scan" };
  if (!paramsKnown && conditions.some(({ text }) => /\$\d/.test(text)))
    return {
      kind: "unknown",
      what: "a parameter in a plan with a subquery, whose result prints as $n too",
    };
  const index = conditions.find(({ field }) => field !== "Filter");
  const condition = (index ?? conditions[0]!).text;
  if (/ OR /.test(condition))
    return { kind: "unknown", what: "conditions joined by OR that do not all key one column" };
  const tested = operatorIn(condition);
  if (!tested) return { kind: "scan" };
  const { operator, column, other } = tested;
  if (operator.means === "range" && index) return { kind: "range", column };
  if (operator.means === "equality" && other)
    return {
      kind: "unknown",
      what: `joined on ${column} = ${other}, whose values livecmd does not know`,
    };
  if (operator.means === "equality" && index)
    return {
      kind: "unknown",
      what: `an equality on ${column} that livecmd does not key on (its type, its collation, or an expression of it)`,
    };
  return {
    kind: "scan",
    filter: operator.match ? { column, match: operator.match } : { column },
  };
}

/**
 * The first operator of a condition, the column on its left (the last one named there) and,
 * when its right is another scan's column (a join), that one as printed (`c.id`).
 */
function operatorIn(
  text: string,
): { operator: (typeof OPERATORS)[number]; column: string; other?: string } | undefined {
  const found = OPERATORS.map((operator) => ({ operator, at: text.indexOf(operator.text) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  if (!found) return undefined;
  const named = [...text.slice(0, found.at).matchAll(COLUMN)].at(-1)?.[1];
  const column = named?.startsWith('"') ? named.slice(1, -1).replaceAll('""', '"') : named;
  const right = text.slice(found.at + found.operator.text.length).replace(/\)+$/, "");
  const other = new RegExp(`^${IDENTIFIER}\\.${IDENTIFIER}$`).test(right) ? right : undefined;
  return { operator: found.operator, column: column ?? "an expression", ...(other && { other }) };
}
