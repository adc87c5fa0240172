import type { PgTypeParsers } from "../postgres/pgLibrary.ts";

const INT8 = 20;

/**
 * pg's parsers, except for `bigint` (what `COUNT(*)` and `SUM` of integers return): a number
 * when it fits, as SQLite gives, so a command's result is the same JSON on both databases; a
 * string beyond 2^53, as pg gives (a JavaScript number would silently round it). `numeric`
 * stays pg's exact string.
 */
export function typeParsers(defaults: PgTypeParsers): PgTypeParsers {
  return {
    getTypeParser(oid, format) {
      if (oid !== INT8 || format === "binary") return defaults.getTypeParser(oid, format);
      return (text) => {
        const value = Number(text);
        return Number.isSafeInteger(value) ? value : text;
      };
    },
  };
}
