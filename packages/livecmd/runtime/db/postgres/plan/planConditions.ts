/**
 * A scan's conditions as EXPLAIN (VERBOSE) prints them (`Index Cond`, `Recheck Cond`, `Filter`,
 * a join's `Hash Cond`), read as far as livecmd keys or filters on them: AND, OR and NOT;
 * comparisons of a column with a parameter, a constant or another scan's column (`=`, `<>`, `<`,
 * `<=`, `>`, `>=`, `= ANY` and `<> ALL` of an array or an `ARRAY[...]` of those); LIKE (`~~`) and
 * NOT LIKE; IS [NOT] NULL; a boolean column. Whatever else a condition says is `other`.
 */
export type Condition =
  | { readonly kind: "and" | "or"; readonly parts: readonly Condition[] }
  | { readonly kind: "not"; readonly part: Condition }
  | {
      readonly kind: "compare";
      readonly op: CompareOp;
      readonly column: ColumnRef;
      /** One value, or an array's elements: `= ANY` holds for any of them, `<> ALL` for all. */
      readonly values: readonly Operand[];
      readonly quantifier: "one" | "any" | "all";
    }
  | {
      readonly kind: "like";
      readonly negated: boolean;
      readonly column: ColumnRef;
      readonly pattern: Operand;
    }
  | { readonly kind: "null"; readonly negated: boolean; readonly column: ColumnRef }
  | { readonly kind: "true"; readonly column: ColumnRef }
  | { readonly kind: "other" };

export type CompareOp = "=" | "<>" | "<" | "<=" | ">" | ">=";

/** Each operator with its sides swapped (`$1 < t.id` is `t.id > $1`). */
const SWAPPED: Readonly<Record<CompareOp, CompareOp>> = {
  "=": "=",
  "<>": "<>",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};
const OPERATORS: readonly CompareOp[] = ["=", "<>", "<", "<=", ">", ">="];

/** `alias.column`; `cast` when the column was cast (varchar to text: `(t.code)::text`). */
export interface ColumnRef {
  readonly alias: string;
  readonly column: string;
  readonly cast?: string;
}

/**
 * One side of an equality: `$n` (`array`: the array `= ANY ($n)` looks in), a constant (`text`
 * as its type's output writes it, `type` as `format_type` names it), or another scan's column.
 */
export type Operand =
  | { readonly kind: "param"; readonly index: number; readonly array: boolean }
  | { readonly kind: "constant"; readonly text: string; readonly type: string }
  | { readonly kind: "column"; readonly ref: ColumnRef };

const OTHER: Condition = { kind: "other" };
const IDENTIFIER = String.raw`(?:[a-z_][a-z0-9_$]*|"(?:[^"]|"")+")`;
const COLUMN = new RegExp(`^(${IDENTIFIER})\\.(${IDENTIFIER})$`);
const CAST_COLUMN = new RegExp(`^\\((${IDENTIFIER})\\.(${IDENTIFIER})\\)::([a-z][a-z ]*)$`);
const PARAM = /^\$(\d+)$/;
const INTEGER = /^\d+$/;
const NUMERIC = /^\d+\.\d+$/;
/** `'text'::type` or `'{...}'::type[]`: quotes inside are doubled (standard_conforming_strings). */
const QUOTED = /^'((?:[^']|'')*)'::([a-z][a-z ]*(?:\[\])?)$/;

export function parseCondition(text: string): Condition {
  const trimmed = text.trim();
  // A boolean column stands unparenthesized among its ANDs.
  const bare = columnRef(trimmed);
  if (bare) return { kind: "true", column: bare };
  const inner = unwrapped(trimmed);
  if (inner === undefined) return OTHER;
  for (const joiner of ["and", "or"] as const) {
    const parts = splitTopLevel(inner, ` ${joiner.toUpperCase()} `) ?? [];
    if (parts.length > 1) return { kind: joiner, parts: parts.map(parseCondition) };
  }
  if (inner.startsWith("NOT ")) {
    const rest = inner.slice(4);
    return {
      kind: "not",
      part: parseCondition(unwrapped(rest) === undefined ? `(${rest})` : rest),
    };
  }
  return nullTest(inner) ?? comparison(inner);
}

/** `t.x IS NULL`, `t.x IS NOT NULL`, `t.b IS TRUE`. */
function nullTest(text: string): Condition | undefined {
  for (const [suffix, make] of [
    [" IS NOT NULL", (column: ColumnRef): Condition => ({ kind: "null", negated: true, column })],
    [" IS NULL", (column: ColumnRef): Condition => ({ kind: "null", negated: false, column })],
    [" IS TRUE", (column: ColumnRef): Condition => ({ kind: "true", column })],
  ] as const) {
    if (!text.endsWith(suffix)) continue;
    const column = columnRef(text.slice(0, -suffix.length));
    return column ? make(column) : OTHER;
  }
  return undefined;
}

/** A comparison of a column with values (either side), or LIKE. */
function comparison(text: string): Condition {
  for (const [operator, negated] of [
    [" ~~ ", false],
    [" !~~ ", true],
  ] as const) {
    const sides = splitTopLevel(text, operator);
    if (sides?.length !== 2) continue;
    const column = columnRef(sides[0]!);
    const pattern = scalarOperand(sides[1]!);
    return column && pattern?.length === 1
      ? { kind: "like", negated, column, pattern: pattern[0]! }
      : OTHER;
  }
  for (const op of OPERATORS) {
    const sides = splitTopLevel(text, ` ${op} `);
    if (sides?.length !== 2) continue;
    const [left, right] = sides as [string, string];
    const column = columnRef(left);
    if (column) return compared(op, column, right);
    const swapped = columnRef(right);
    const value = scalarOperand(left);
    return swapped && value ? compare(SWAPPED[op], swapped, value, "one") : OTHER;
  }
  return OTHER;
}

function compared(op: CompareOp, column: ColumnRef, text: string): Condition {
  for (const quantifier of ["any", "all"] as const) {
    const values = quantified(text, quantifier === "any" ? "ANY " : "ALL ");
    if (values) return compare(op, column, values, quantifier);
  }
  const value = scalarOperand(text);
  return value ? compare(op, column, value, "one") : OTHER;
}

function compare(
  op: CompareOp,
  column: ColumnRef,
  values: readonly Operand[],
  quantifier: "one" | "any" | "all",
): Condition {
  return { kind: "compare", op, column, values, quantifier };
}

/** `ANY ($n)`, `ANY ('{...}'::type[])` or `ANY (ARRAY[a, b, ...])`, and the same of `ALL`. */
function quantified(text: string, keyword: "ANY " | "ALL "): readonly Operand[] | undefined {
  if (!text.startsWith(keyword)) return undefined;
  let inner = unwrapped(text.slice(4));
  if (inner === undefined) return undefined;
  // `(ARRAY[$1, $2])::text[]`: varchar parameters in an array of text, their values unchanged.
  const cast = /^\((ARRAY\[.*\])\)::text\[\]$/.exec(inner);
  if (cast) inner = cast[1]!;
  if (inner.startsWith("ARRAY[") && inner.endsWith("]")) {
    const items = splitTopLevel(inner.slice(6, -1), ", ")?.map(scalarOperand) ?? [undefined];
    return items.every((item) => item !== undefined) ? items.flat() : undefined;
  }
  const param = PARAM.exec(inner);
  if (param) return [{ kind: "param", index: Number(param[1]), array: true }];
  const constant = QUOTED.exec(inner);
  return constant?.[2]!.endsWith("[]") ? [quotedConstant(constant)] : undefined;
}

function scalarOperand(text: string): Operand[] | undefined {
  const param = PARAM.exec(text);
  if (param) return [{ kind: "param", index: Number(param[1]), array: false }];
  if (INTEGER.test(text)) return [{ kind: "constant", text, type: "integer" }];
  if (NUMERIC.test(text)) return [{ kind: "constant", text, type: "numeric" }];
  if (text === "true" || text === "false") return [{ kind: "constant", text, type: "boolean" }];
  const constant = QUOTED.exec(text);
  if (constant && !constant[2]!.endsWith("[]")) return [quotedConstant(constant)];
  const ref = columnRef(text);
  return ref && [{ kind: "column", ref }];
}

function quotedConstant(match: RegExpExecArray): Operand {
  return { kind: "constant", text: match[1]!.replaceAll("''", "'"), type: match[2]! };
}

function columnRef(text: string): ColumnRef | undefined {
  const plain = COLUMN.exec(text);
  if (plain) return { alias: identifier(plain[1]!), column: identifier(plain[2]!) };
  const cast = CAST_COLUMN.exec(text);
  return cast
    ? { alias: identifier(cast[1]!), column: identifier(cast[2]!), cast: cast[3]! }
    : undefined;
}

function identifier(text: string): string {
  return text.startsWith('"') ? text.slice(1, -1).replaceAll('""', '"') : text;
}

/** The text inside one pair of parentheses that encloses all of `text`, else undefined. */
function unwrapped(text: string): string | undefined {
  if (!text.startsWith("(") || !text.endsWith(")")) return undefined;
  const inner = text.slice(1, -1);
  return splitTopLevel(inner, ")")?.length === 1 ? inner : undefined;
}

/**
 * `text` cut at each `separator` outside quotes, parentheses and brackets; undefined when they
 * do not balance (a `)` closing what it did not open counts as a separator, for `unwrapped`).
 */
function splitTopLevel(text: string, separator: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]!;
    if (depth === 0 && text.startsWith(separator, at)) {
      parts.push(text.slice(from, at));
      from = at + separator.length;
      at = from - 1;
    } else if (char === "'" || char === '"') {
      // A doubled quote closes and reopens: the same as one quoted run.
      at = text.indexOf(char, at + 1);
      if (at === -1) return undefined;
    } else if (char === "(" || char === "[") depth += 1;
    else if (char === ")" || char === "]") depth -= 1;
    if (depth < 0) return undefined;
  }
  if (depth !== 0) return undefined;
  parts.push(text.slice(from));
  return parts;
}
