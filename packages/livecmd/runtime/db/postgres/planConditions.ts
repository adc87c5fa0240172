/**
 * A scan's conditions as EXPLAIN (VERBOSE) prints them (`Index Cond`, `Recheck Cond`, `Filter`),
 * read as far as livecmd keys on them: ANDs, ORs, and equalities of a column with a parameter, a
 * constant or another scan's column (`= ANY` of an array or an `ARRAY[...]` of those). Whatever
 * else a condition says is `other`, which keys on nothing.
 */
export type Condition =
  | { readonly kind: "and" | "or"; readonly parts: readonly Condition[] }
  | { readonly kind: "equals"; readonly column: ColumnRef; readonly values: readonly Operand[] }
  | { readonly kind: "other" };

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
/** `'text'::type` or `'{...}'::type[]`: quotes inside are doubled (standard_conforming_strings). */
const QUOTED = /^'((?:[^']|'')*)'::([a-z][a-z ]*(?:\[\])?)$/;

export function parseCondition(text: string): Condition {
  const inner = unwrapped(text.trim());
  if (inner === undefined) return OTHER;
  for (const joiner of ["and", "or"] as const) {
    const parts = splitTopLevel(inner, ` ${joiner.toUpperCase()} `) ?? [];
    if (parts.length > 1) return { kind: joiner, parts: parts.map(parseCondition) };
  }
  return equality(inner);
}

function equality(text: string): Condition {
  const sides = splitTopLevel(text, " = ");
  if (sides?.length !== 2) return OTHER;
  const column = columnRef(sides[0]!);
  const values = anyOperands(sides[1]!) ?? scalarOperand(sides[1]!);
  return column && values ? { kind: "equals", column, values } : OTHER;
}

/** `ANY ($n)`, `ANY ('{...}'::type[])` or `ANY (ARRAY[a, b, ...])`. */
function anyOperands(text: string): readonly Operand[] | undefined {
  if (!text.startsWith("ANY ")) return undefined;
  const inner = unwrapped(text.slice(4));
  if (inner === undefined) return undefined;
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
