/** One SQL literal as SQLite's `quote()` writes it: NULL, an integer, a real, 'text' or X'blob'. */
const LITERAL = /NULL|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|'(?:[^']|'')*'|X'[0-9A-F]*'/gy;

/**
 * The values of a list of `quote()`d literals joined by commas, as SQLite held them: integers
 * as bigints (exact beyond 2^53), reals as numbers (`quote` writes them so that they read back
 * exactly), text as strings, blobs as Buffers.
 */
export function parseLiterals(list: string): unknown[] {
  const values: unknown[] = [];
  LITERAL.lastIndex = 0;
  while (LITERAL.lastIndex < list.length) {
    const start = LITERAL.lastIndex;
    const literal = LITERAL.exec(list)?.[0];
    if (literal === undefined) throw new Error(`not a quote()d literal at ${start}: ${list}`);
    values.push(literalValue(literal));
    if (LITERAL.lastIndex < list.length && list[LITERAL.lastIndex++] !== ",")
      throw new Error(`expected a comma at ${LITERAL.lastIndex - 1}: ${list}`);
  }
  return values;
}

function literalValue(literal: string): unknown {
  if (literal === "NULL") return null;
  if (literal.startsWith("'")) return literal.slice(1, -1).replaceAll("''", "'");
  if (literal.startsWith("X'")) return Buffer.from(literal.slice(2, -1), "hex");
  return /^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal);
}
