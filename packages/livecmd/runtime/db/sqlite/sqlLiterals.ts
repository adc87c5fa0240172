import { cutText } from "../../text/cutText.ts";

/**
 * The values of a list of `quote()`d literals joined by commas, as SQLite held them: integers
 * as bigints (exact beyond 2^53), reals as numbers (`quote` writes them so that they read back
 * exactly), text as strings, blobs as Buffers. Read by one scan from left to right, without a
 * regular expression or recursion: any process that can write the file can write the list, so
 * its length (8 million characters of text, say) must cost time in proportion, never the stack.
 * Anything else throws, saying where.
 */
export function parseLiterals(list: string): unknown[] {
  const values: unknown[] = [];
  for (let at = 0; at < list.length;) {
    const end = literalEnd(list, at);
    if (end === undefined)
      throw new Error(`not a quote()d literal at ${at}: ${cutText(list, 100)}`);
    values.push(literalValue(list.slice(at, end)));
    at = end;
    if (at === list.length) break;
    if (list[at] !== ",") throw new Error(`expected a comma at ${at}: ${cutText(list, 100)}`);
    at += 1;
    if (at === list.length)
      throw new Error(`not a quote()d literal at ${at}: ${cutText(list, 100)}`);
  }
  return values;
}

/** Where the literal that starts at `at` ends: NULL, an integer, a real, 'text' or X'blob'. */
function literalEnd(list: string, at: number): number | undefined {
  const first = list[at];
  if (first === "'") return textEnd(list, at + 1);
  if (first === "X") return list[at + 1] === "'" ? blobEnd(list, at + 2) : undefined;
  if (first === "N") return list.startsWith("NULL", at) ? at + 4 : undefined;
  return numberEnd(list, at);
}

/** After the closing quote of text whose first character is at `at`; a doubled quote is one quote. */
function textEnd(list: string, at: number): number | undefined {
  for (let quote = list.indexOf("'", at); quote >= 0; quote = list.indexOf("'", quote + 2))
    if (list[quote + 1] !== "'") return quote + 1;
  return undefined;
}

/** After the closing quote of a blob's hex digits (upper case, two per byte) from `at`. */
function blobEnd(list: string, at: number): number | undefined {
  let end = at;
  while (isHexDigit(list.charCodeAt(end))) end += 1;
  return list[end] === "'" && (end - at) % 2 === 0 ? end + 1 : undefined;
}

/** `-?\d+(\.\d+)?(e[+-]?\d+)?`, as `quote()` writes integers and reals. */
function numberEnd(list: string, at: number): number | undefined {
  let end = digitsEnd(list, list[at] === "-" ? at + 1 : at);
  if (end !== undefined && list[end] === ".") end = digitsEnd(list, end + 1);
  if (end === undefined || list[end] !== "e") return end;
  const sign = list[end + 1] === "+" || list[end + 1] === "-" ? 1 : 0;
  return digitsEnd(list, end + 1 + sign);
}

/** After one or more decimal digits from `at`. */
function digitsEnd(list: string, at: number): number | undefined {
  let end = at;
  while (isDigit(list.charCodeAt(end))) end += 1;
  return end > at ? end : undefined;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isHexDigit(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x46);
}

function literalValue(literal: string): unknown {
  if (literal === "NULL") return null;
  if (literal.startsWith("'")) return literal.slice(1, -1).replaceAll("''", "'");
  if (literal.startsWith("X'")) return Buffer.from(literal.slice(2, -1), "hex");
  return literal.includes(".") || literal.includes("e") ? Number(literal) : BigInt(literal);
}
