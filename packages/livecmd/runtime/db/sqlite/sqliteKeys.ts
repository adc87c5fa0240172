import type { KeyValue } from "../keyedAccess.ts";
import type { Scalar } from "../scalar.ts";
import type { Affinity, Collation, KeyColumn } from "./sqliteSchema.ts";

/**
 * A value as SQLite holds it: one of its storage classes (integer and real as one: they compare
 * by value; a bigint is an integer, a number a real).
 */
export type Typed = Exclude<Scalar, { kind: "decimal" }>;

/** SQLite's whitespace, which it skips around a number in text. */
const SPACE = "[ \\t\\n\\v\\f\\r]*";
const INTEGER_TEXT = new RegExp(`^${SPACE}([+-]?\\d{1,18})${SPACE}$`);
const REAL_TEXT = new RegExp(
  `^${SPACE}([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?)${SPACE}$`,
);
/** The digits SQLite keeps when it writes a real as text ("%!.15g"), and that a text read as a real can be trusted to. */
const REAL_DIGITS = 15;

/**
 * The key of a value bound to a lookup of `column`, as SQLite compares it there: converted by
 * each affinity in `via` (what it went through on its way, such as a rowid), then by the column's.
 * Undefined when livecmd cannot tell for sure (NULL, which `IS` finds; a real written as text
 * with more digits than SQLite keeps): then the read is a whole-table read.
 */
export function boundKey(
  value: unknown,
  via: readonly Affinity[],
  column: KeyColumn,
): KeyValue | undefined {
  let typed = boundValue(value);
  for (const affinity of via) typed = typed && withAffinity(typed, affinity);
  typed = typed && withAffinity(typed, column.affinity);
  return typed && encode(typed, column.collation);
}

/**
 * The key of a value stored in `column`, as a trigger hands it over (integers as bigints): null
 * for NULL, undefined when it cannot be told (then a row image leaves the column out).
 */
export function storedKey(value: unknown, column: KeyColumn): KeyValue | null | undefined {
  if (value === null) return null;
  const typed = boundValue(value);
  return typed && encode(typed, column.collation);
}

/**
 * How a JavaScript value binds: every number as a real, even 7, a bigint as an integer, bytes
 * (a Buffer from better-sqlite3, a Uint8Array from node:sqlite) as a blob. better-sqlite3 and
 * node:sqlite bind alike (a test of each holds them to it), so one rule serves both.
 */
export function boundValue(value: unknown): Typed | undefined {
  if (typeof value === "number")
    return Number.isFinite(value) ? { kind: "number", value } : undefined;
  if (typeof value === "bigint") return { kind: "number", value };
  if (typeof value === "string") return { kind: "text", value };
  if (value instanceof Uint8Array)
    return { kind: "blob", value: Buffer.from(value).toString("hex").toUpperCase() };
  return undefined;
}

/** A value converted as SQLite applies `affinity` to it (`applyAffinity`); undefined when unsure. */
export function withAffinity(typed: Typed, affinity: Affinity): Typed | undefined {
  if (affinity === "blob" || typed.kind === "blob") return typed;
  if (affinity === "text") return typed.kind === "number" ? numberAsText(typed.value) : typed;
  return typed.kind === "text" ? textAsNumber(typed.value) : typed;
}

/** Text as a numeric column stores it: a number when it is one, else the text as it is. */
export function textAsNumber(text: string): Typed | undefined {
  const integer = INTEGER_TEXT.exec(text);
  if (integer) return { kind: "number", value: BigInt(integer[1]!) };
  const real = REAL_TEXT.exec(text);
  if (!real) return { kind: "text", value: text };
  return significantDigits(real[1]!) <= REAL_DIGITS
    ? { kind: "number", value: Number(real[1]) }
    : undefined;
}

/** A number as a text column stores it: an integer in decimal, a real as SQLite prints it ("7.0"). */
export function numberAsText(value: number | bigint): Typed | undefined {
  if (typeof value === "bigint") return { kind: "text", value: value.toString() };
  if (Number.isInteger(value))
    return Math.abs(value) < 10 ** REAL_DIGITS
      ? { kind: "text", value: `${value.toFixed(0)}.0` }
      : undefined;
  const text = String(value);
  return /e/i.test(text) || significantDigits(text) > REAL_DIGITS
    ? undefined
    : { kind: "text", value: text };
}

function significantDigits(literal: string): number {
  const mantissa = literal.replace(/[eE].*$/, "").replace(/[^\d]/g, "");
  return mantissa.replace(/^0+/, "").length;
}

function encode(typed: Typed, collation: Collation): KeyValue {
  if (typed.kind === "blob") return `b${typed.value.toUpperCase()}`;
  if (typed.kind === "text") return `t${collated(typed.value, collation)}`;
  const { value } = typed;
  // A safe integer prints as its BigInt does; a larger integral double prints rounded, so exactly.
  const exactly =
    typeof value === "number" &&
    !Number.isSafeInteger(value) &&
    Number.isInteger(value) &&
    Math.abs(value) < 2 ** 63;
  return `n${exactly ? BigInt(value).toString() : String(value)}`;
}

/**
 * Text as the collation compares it: NOCASE folds ASCII letters only; RTRIM drops trailing
 * spaces (by a scan from the end: `/ +$/` backtracks, quadratic on a long run of spaces).
 */
export function collated(text: string, collation: Collation): string {
  if (collation === "NOCASE") return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  if (collation !== "RTRIM") return text;
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end -= 1;
  return text.slice(0, end);
}

/** A key as a person reads it, in SQL: `7`, `'ada@example.com'` (as the collation folds it), `X'00FF'`. */
export function keyText(key: KeyValue): string {
  const value = key.slice(1);
  if (key.startsWith("n")) return value;
  if (key.startsWith("b")) return `X'${value}'`;
  return `'${value.replaceAll("'", "''")}'`;
}
