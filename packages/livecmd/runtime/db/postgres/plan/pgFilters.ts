import type { RowImage } from "../../keyedAccess.ts";
import {
  opaque,
  prefixInterval,
  both,
  either,
  RowFilter,
  test,
  type Atom,
  type Decision,
  type Interval,
  type Probe,
  type View,
} from "../../rowFilter.ts";
import { compareScalars, decimalOf, scalarText, type Scalar } from "../../scalar.ts";
import type { CompareOp } from "./planConditions.ts";
import { keysOfTexts } from "./pgKeys.ts";

/**
 * How PostgreSQL compares the values filters test, for the types livecmd reproduces exactly:
 * integers, numeric (exact decimals), real and double precision (as IEEE doubles; NaN and the
 * infinities untold), text (equality byte for byte under a deterministic collation, order only
 * under C), boolean, uuid, date and timestamp (ISO text, compared as text). A row image holds
 * each column as `to_jsonb(row) ->> column` writes it, a parameter as node-postgres sends it.
 */
export type Family =
  "integer" | "numeric" | "float" | "text" | "boolean" | "uuid" | "date" | "timestamp";

const FAMILIES: Readonly<Record<string, Family>> = {
  smallint: "integer",
  integer: "integer",
  bigint: "integer",
  numeric: "numeric",
  real: "float",
  "double precision": "float",
  text: "text",
  "character varying": "text",
  boolean: "boolean",
  uuid: "uuid",
  date: "date",
  "timestamp without time zone": "timestamp",
};

/** The types filters compare, as `format_type` names them: the columns row images carry besides keys. */
export const FILTER_TYPES: readonly string[] = Object.keys(FAMILIES);

/** The family a type (as `format_type` names it) compares in; undefined when livecmd does not compare it. */
export function familyOf(type: string): Family | undefined {
  return FAMILIES[type];
}

/** The casts of a column a plan may print that keep its values (varchar to text, an integer to numeric or bigint). */
export function castFamily(type: string, cast: string): Family | undefined {
  const from = familyOf(type);
  const to = familyOf(cast);
  if (from === to) return to;
  return from === "integer" && to === "numeric" ? to : undefined;
}

/** A value of `family` (of `type`, for real's single precision) from its text; undefined when unsure. */
export function scalarOf(text: string, family: Family, type: string): Scalar | undefined {
  switch (family) {
    case "integer":
      return /^[+-]?\d+$/.test(text) ? { kind: "number", value: BigInt(text) } : undefined;
    case "numeric":
      return decimalOf(text);
    case "float": {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return undefined;
      const value = type === "real" ? Math.fround(Number(text)) : Number(text);
      return Number.isFinite(value) ? { kind: "number", value } : undefined;
    }
    case "boolean":
      return text === "true" || text === "false"
        ? { kind: "number", value: text === "true" ? 1n : 0n }
        : undefined;
    case "uuid": {
      const key = keysOfTexts([text], "uuid")?.[0];
      return key === undefined ? undefined : { kind: "text", value: key };
    }
    case "date":
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? { kind: "text", value: text } : undefined;
    case "timestamp":
      return timestampOf(text);
    default:
      return keysOfTexts([text], "text") ? { kind: "text", value: text } : undefined;
  }
}

/** A timestamp written as ISO text, to one form: `YYYY-MM-DDTHH:MM:SS.ffffff`. */
function timestampOf(text: string): Scalar | undefined {
  const parts = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/.exec(
    text,
  );
  if (!parts) return undefined;
  const [, date, hours = "00", minutes = "00", seconds = "00", fraction = ""] = parts;
  return {
    kind: "text",
    value: `${date}T${hours}:${minutes}:${seconds}.${fraction.padEnd(6, "0")}`,
  };
}

/** A column a filter tests, as its conditions see it: its name, its type and the family it is compared in. */
export interface FilterColumn {
  readonly name: string;
  readonly type: string;
  readonly family: Family;
  /** Text of it sorts by code point (the C collation): ranges on it can be told. */
  readonly byteOrdered: boolean;
}

/** A value a filter compares with: a scalar, NULL, or undefined when it cannot be told. */
export type FilterValue = Scalar | null | undefined;

/**
 * A filter's test as planned, NOT pushed into each test (`NOT (a < b)` is `a >= b`, which is
 * NULL where the other is: a filter keeps a row only when its condition is true).
 */
export type Predicate =
  | { readonly kind: "and" | "or"; readonly parts: readonly Predicate[] }
  | {
      readonly kind: "compare";
      readonly column: FilterColumn;
      readonly op: CompareOp;
      readonly quantifier: "one" | "any" | "all";
      readonly values: readonly FilterValue[];
    }
  | {
      readonly kind: "like";
      readonly column: FilterColumn;
      readonly negated: boolean;
      readonly pattern: FilterValue;
    }
  | { readonly kind: "null"; readonly column: FilterColumn; readonly negated: boolean }
  | { readonly kind: "unknown"; readonly text: string };

/** A predicate as a filter of rows. */
export function predicateFilter(predicate: Predicate): RowFilter {
  return new RowFilter(decisionOf(predicate));
}

function decisionOf(predicate: Predicate): Decision {
  if ("parts" in predicate) {
    const join = predicate.kind === "and" ? both : either;
    return predicate.parts.map(decisionOf).reduce((a, b) => join(a, b));
  }
  return test(atomOf(predicate));
}

function atomOf(predicate: Exclude<Predicate, { kind: "and" | "or" }>): Atom {
  switch (predicate.kind) {
    case "compare":
      return compareAtom(predicate);
    case "like":
      return likeAtom(predicate);
    case "null":
      return nullAtom(predicate);
    default:
      return opaque(predicate.text);
  }
}

/** The view of a column the index looks images up by: its value in its family. */
function viewOf(column: FilterColumn): View {
  return {
    id: `${column.name}:${column.family}`,
    of(image) {
      const text = image[column.name];
      if (text === undefined || text === null) return text;
      return scalarOf(text, column.family, column.type);
    },
  };
}

/** The image's value of a column: a scalar, null for NULL, undefined when it cannot be told. */
function valueOf(image: RowImage, column: FilterColumn): Scalar | null | undefined {
  return viewOf(column).of(image);
}

const SQL: Readonly<Record<CompareOp, string>> = {
  "=": "=",
  "<>": "<>",
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
};

function compareAtom(predicate: Extract<Predicate, { kind: "compare" }>): Atom {
  const { column, op, quantifier, values } = predicate;
  const ordering = op !== "=" && op !== "<>";
  const text = `${column.name} ${SQL[op]}${quantifier === "one" ? "" : quantifier === "any" ? " ANY" : " ALL"} ${valuesText(values, quantifier !== "one", column.family)}`;
  if (
    values.some((value) => value === undefined) ||
    (ordering && column.family === "text" && !column.byteOrdered)
  )
    return opaque(text);
  const known = values as (Scalar | null)[];
  const holds = (value: Scalar, other: Scalar | null): boolean | null =>
    other === null ? null : compared(op, orderOf(value, other));
  return {
    test(image) {
      const value = valueOf(image, column);
      if (value === undefined) return undefined;
      if (value === null) return false;
      const results = known.map((other) => holds(value, other));
      return quantifier === "all"
        ? results.every((result) => result === true)
        : results.some((result) => result === true);
    },
    ...compareProbe(predicate),
    text,
    negation: `NOT (${text})`,
  };
}

/**
 * Two values of one family in PostgreSQL's order: numbers by value; text by code point (what the
 * C collation's byte order is; other collations only ever compare for equality here).
 */
function orderOf(a: Scalar, b: Scalar): number {
  return compareScalars(a, b);
}

function compared(op: CompareOp, order: number): boolean {
  switch (op) {
    case "=":
      return order === 0;
    case "<>":
      return order !== 0;
    case "<":
      return order < 0;
    case "<=":
      return order <= 0;
    case ">":
      return order > 0;
    default:
      return order >= 0;
  }
}

/** What a row the comparison holds for has: one of the values, or a value in a range. */
function compareProbe({
  column,
  op,
  quantifier,
  values,
}: Extract<Predicate, { kind: "compare" }>): { whenTrue?: Probe } {
  const view = viewOf(column);
  const scalars = values.filter((value): value is Scalar => value !== null && value !== undefined);
  if (op === "=" && quantifier !== "all") return { whenTrue: { view, equals: scalars } };
  if (op === "=" || op === "<>" || quantifier !== "one" || scalars.length !== 1) return {};
  const [value] = scalars as [Scalar];
  const interval: Interval =
    op === "<" || op === "<="
      ? { upper: { value, inclusive: op === "<=" } }
      : { lower: { value, inclusive: op === ">=" } };
  return { whenTrue: { view, within: interval } };
}

function likeAtom({ column, negated, pattern }: Extract<Predicate, { kind: "like" }>): Atom {
  const patternText = pattern === null ? "NULL" : pattern === undefined ? "?" : scalarText(pattern);
  const text = `${column.name} ${negated ? "NOT LIKE" : "LIKE"} ${patternText}`;
  if (
    column.family !== "text" ||
    pattern === undefined ||
    (pattern !== null && pattern.kind !== "text")
  )
    return opaque(text);
  const source = pattern === null ? null : (pattern as { value: string }).value;
  if (source !== null && /(^|[^\\])(\\\\)*\\$/.test(source)) return opaque(text);
  const prefix = source === null ? "" : fixedPrefix(source);
  return {
    test(image) {
      const value = valueOf(image, column);
      if (value === undefined) return undefined;
      if (value === null || source === null || value.kind !== "text") return false;
      return likeMatches(source, value.value) !== negated;
    },
    ...(!negated &&
      prefix !== "" && { whenTrue: { view: viewOf(column), within: prefixInterval(prefix) } }),
    text,
    negation: `${column.name} ${negated ? "LIKE" : "NOT LIKE"} ${patternText}`,
  };
}

/** Whether `text` matches a LIKE pattern as PostgreSQL reads it: `%`, `_`, and `\\` taking the next character as it is. */
export function likeMatches(pattern: string, text: string): boolean {
  const p = [...pattern];
  const t = [...text];
  const memo = new Map<number, boolean>();
  const match = (at: number, from: number): boolean => {
    const key = at * (t.length + 1) + from;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (at === p.length) result = from === t.length;
    else if (p[at] === "\\")
      result = from < t.length && t[from] === p[at + 1] && match(at + 2, from + 1);
    else if (p[at] === "%") {
      result = false;
      for (let next = from; next <= t.length && !result; next += 1) result = match(at + 1, next);
    } else if (p[at] === "_") result = from < t.length && match(at + 1, from + 1);
    else result = from < t.length && t[from] === p[at] && match(at + 1, from + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

function fixedPrefix(pattern: string): string {
  let prefix = "";
  const chars = [...pattern];
  for (let at = 0; at < chars.length; at += 1) {
    const char = chars[at]!;
    if (char === "%" || char === "_") return prefix;
    prefix += char === "\\" ? (chars[(at += 1)] ?? "") : char;
  }
  return prefix;
}

function nullAtom({ column, negated }: Extract<Predicate, { kind: "null" }>): Atom {
  const isNull = `${column.name} IS NULL`;
  const notNull = `${column.name} IS NOT NULL`;
  return {
    test(image) {
      const text = image[column.name];
      return text === undefined ? undefined : (text === null) !== negated;
    },
    ...(negated && { whenTrue: { view: viewOf(column), within: {} } }),
    text: negated ? notNull : isNull,
    negation: negated ? isNull : notNull,
  };
}

function valuesText(values: readonly FilterValue[], list: boolean, family?: Family): string {
  const shown = values
    .slice(0, 5)
    .map((value) =>
      value === undefined
        ? "?"
        : value === null
          ? "NULL"
          : family === "boolean"
            ? String(value.kind === "number" && value.value === 1n)
            : scalarText(value),
    );
  const more = values.length > 5 ? [`… ${values.length - 5} more`] : [];
  return list ? `(${[...shown, ...more].join(", ")})` : shown[0]!;
}
