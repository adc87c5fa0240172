import type { KeyValue } from "../../keyedAccess.ts";
import type { KeyKind } from "../keyColumns.ts";

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;
const INTEGER_TEXT = /^[+-]?\d+$/;
/** What UTF-8 cannot carry as it is (Node sends U+FFFD instead), and what text cannot hold. */
const LONE_SURROGATE_OR_NUL =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\0/;
/** The forms of uuid input livecmd reads (PostgreSQL takes more: braces, other hyphens). */
const UUID_TEXT = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/i;

/**
 * A key column's value given as text (what node-postgres sends for a parameter, a constant as
 * its type prints it, an element of an array literal), as the change feed writes it
 * (`to_jsonb(row) ->> column`): integers in decimal without sign or zeros to spare, uuid in lower
 * case with hyphens, text exactly. Undefined when livecmd cannot be sure how PostgreSQL reads it
 * (an integer with spaces, a uuid in braces, text JavaScript holds ill-formed): then the read
 * is a whole-table read.
 */
function keyOfText(text: string, kind: KeyKind): KeyValue | undefined {
  if (kind === "text") return LONE_SURROGATE_OR_NUL.test(text) ? undefined : text;
  if (kind === "uuid") {
    const parts = UUID_TEXT.exec(text);
    return parts ? parts.slice(1).join("-").toLowerCase() : undefined;
  }
  if (!INTEGER_TEXT.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT8_MIN && value <= INT8_MAX ? value.toString() : undefined;
}

/**
 * The text node-postgres sends for a parameter (`String(value)` for numbers, bigints and
 * booleans); null for NULL, which no key lookup finds; undefined for what it does not send as
 * text (a Buffer, an array, an object).
 */
export function sentText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean")
    return String(value);
  return undefined;
}

/**
 * The elements of a one-dimensional array literal (`{1,2,"a b",NULL}`), null for NULL; undefined
 * for anything livecmd does not read (more dimensions, bounds, spaces outside quotes).
 */
export function arrayElements(literal: string): (string | null)[] | undefined {
  if (!literal.startsWith("{") || !literal.endsWith("}")) return undefined;
  const body = literal.slice(1, -1);
  const elements: (string | null)[] = [];
  if (body === "") return elements;
  let at = 0;
  for (;;) {
    const element = body[at] === '"' ? quotedElement(body, at) : plainElement(body, at);
    if (!element) return undefined;
    elements.push(element.value);
    at = element.end;
    if (at === body.length) return elements;
    if (body[at] !== ",") return undefined;
    at += 1;
  }
}

function quotedElement(body: string, from: number): { value: string; end: number } | undefined {
  let value = "";
  for (let at = from + 1; at < body.length; at += 1) {
    const char = body[at]!;
    if (char === '"') return { value, end: at + 1 };
    if (char === "\\") at += 1;
    if (at >= body.length) return undefined;
    value += body[at];
  }
  return undefined;
}

function plainElement(
  body: string,
  from: number,
): { value: string | null; end: number } | undefined {
  let end = from;
  while (end < body.length && body[end] !== ",") end += 1;
  const text = body.slice(from, end);
  if (text === "" || /[\s{}"\\]/.test(text)) return undefined;
  return { value: text.toUpperCase() === "NULL" ? null : text, end };
}

/** The keys of several texts (NULL finds no row: none); undefined when one cannot be told. */
export function keysOfTexts(
  texts: readonly (string | null)[] | undefined,
  kind: KeyKind,
): KeyValue[] | undefined {
  const keys: KeyValue[] = [];
  for (const text of texts ?? [undefined]) {
    if (text === null) continue;
    const key = text === undefined ? undefined : keyOfText(text, kind);
    if (key === undefined) return undefined;
    keys.push(key);
  }
  return keys;
}
