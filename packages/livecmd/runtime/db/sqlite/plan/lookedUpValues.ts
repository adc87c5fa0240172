import type { KeyValue, RowImage } from "../../keyedAccess.ts";
import type { RowFilter } from "../../rowFilter.ts";
import type { Lookup } from "./planReads.ts";
import { imageSql, RowImages, type ImageColumn } from "../changes/rowImages.ts";
import type { SqliteStatement } from "../sqliteConnection.ts";
import { quoteName, type KeyColumn } from "../sqliteSchema.ts";
import { parseLiterals } from "../sqlLiterals.ts";
import { groupedDigits } from "../../../text/groupedDigits.ts";

/**
 * The most values a lookup records: beyond them, what they key reads whole (a list of a few
 * hundred rows with their names is what this is for, not a join of two big tables).
 */
export const LOOKUP_LIMIT = 1000;

/**
 * The most rows a lookup tests against a filter: beyond them, what they key reads whole, so a
 * run never pays more than this for a lookup.
 */
export const SCAN_LIMIT = 10_000;

const TOO_MANY_VALUES = `more than ${groupedDigits(LOOKUP_LIMIT)} values`;
const TOO_MANY_ROWS = `more than ${groupedDigits(SCAN_LIMIT)} supplying rows`;

/** The rows of a table a statement reads, with their values bound: whole, or by keys and filters. */
export type BoundRows =
  | { readonly whole: true }
  | {
      readonly keys: readonly {
        readonly column: KeyColumn;
        readonly values: readonly KeyValue[];
      }[];
      readonly filters: readonly BoundFilter[];
    };

/**
 * A filter, and SQL that keeps every row it keeps and usually few others (an index range's
 * ends), to read fewer rows than the whole table with.
 */
export interface BoundFilter {
  readonly filter: RowFilter;
  readonly within?: { readonly sql: string; readonly params: readonly unknown[] };
}

/**
 * The values a statement looks rows up by, read off the rows it reads of another table
 * (`lookup.field` of `rows`), by a statement of livecmd's own over the same connection, right
 * before the statement runs: SQLite runs both on this thread, so nothing of this process writes
 * between them, and a write by another that moves the supplying rows is a change to rows the
 * statement read, which re-runs it. Each value as SQLite holds it (through `quote()`, so integers
 * beyond 2^53 stay exact); or why they cannot be told (more than `LOOKUP_LIMIT` of them, more
 * than `SCAN_LIMIT` rows to test against a filter), the words of a `WholeReason` of kind lookup.
 */
export function lookedUpValues(
  prepare: (sql: string) => SqliteStatement,
  lookup: Lookup,
  rows: BoundRows,
  columns: ReadonlyMap<string, ImageColumn>,
): unknown[] | string {
  const field = lookup.field === "rowid" ? rowidSql(columns) : lookup.field.sql;
  if (field === undefined) return "a rowid every name of which a column takes";
  const table = quoteName(lookup.table);
  const found = new Set<string>();
  const add = (literal: string) => found.add(literal);
  if ("whole" in rows) {
    const all = prepare(
      `SELECT DISTINCT quote(t.${field}) AS value FROM ${table} AS t LIMIT ${LOOKUP_LIMIT + 1}`,
    ).all() as { value: string }[];
    all.forEach(({ value }) => add(value));
  } else {
    const image = imageSql("t", columns);
    const select = `SELECT quote(t.${field}) AS value, ${image.keys} AS keys, ${image.values} AS image FROM ${table} AS t`;
    for (const { column, values } of rows.keys) {
      if (values.length === 0) continue;
      const where = `t.${column.sql} COLLATE ${column.collation} IN (${values.map(() => "?").join(", ")})`;
      const wanted = new Set(values);
      for (const row of rowsOf(prepare, `${select} WHERE ${where}`, values.map(keyValue), columns))
        if (wanted.has(row.image[column.key] ?? "")) add(row.value);
    }
    for (const { filter, within } of rows.filters) {
      const where = within ? ` WHERE ${within.sql}` : "";
      const scanned = rowsOf(
        prepare,
        `${select}${where} LIMIT ${SCAN_LIMIT + 1}`,
        within?.params ?? [],
        columns,
      );
      if (scanned.length > SCAN_LIMIT) return TOO_MANY_ROWS;
      for (const row of scanned) if (filter.admits(row.image)) add(row.value);
    }
  }
  if (found.size > LOOKUP_LIMIT) return TOO_MANY_VALUES;
  return [...found].map((literal) => parseLiterals(literal)[0]);
}

function rowsOf(
  prepare: (sql: string) => SqliteStatement,
  sql: string,
  params: readonly unknown[],
  columns: ReadonlyMap<string, ImageColumn>,
): { value: string; image: RowImage }[] {
  const rows = prepare(sql).all(...params) as { value: string; keys: string; image: string }[];
  const images = new RowImages();
  return rows.map(({ value, keys, image }) => ({ value, image: images.of(columns, keys, image) }));
}

/** The rowid's name in `columns` (whichever of its names the table leaves it). */
function rowidSql(columns: ReadonlyMap<string, ImageColumn>): string | undefined {
  for (const [sql, { entries }] of columns)
    if (entries.some(({ key }) => key === "rowid")) return sql;
  return undefined;
}

/** A key as a value to bind: it compares equal, in its column, to the values it stands for. */
function keyValue(key: KeyValue): unknown {
  const value = key.slice(1);
  if (key.startsWith("t")) return value;
  if (key.startsWith("b")) return Buffer.from(value, "hex");
  return /^-?\d+$/.test(value) ? BigInt(value) : Number(value);
}
