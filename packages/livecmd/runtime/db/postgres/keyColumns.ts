import type { PgClient } from "./pgLibrary.ts";

/**
 * How the change feed writes a key column's values, which is how a read's values must be written
 * to match them: integers in decimal, uuid in its canonical lower-case form, text as it is.
 */
export type KeyKind = "integer" | "uuid" | "text";

/** The key types, by the name `format_type` gives them (what a plan and `::regtype::text` show). */
export const KEY_KINDS: Readonly<Record<string, KeyKind>> = {
  smallint: "integer",
  integer: "integer",
  bigint: "integer",
  uuid: "uuid",
  text: "text",
  "character varying": "text",
};

/**
 * Whether the column `a` (a row of pg_attribute) of the table `relid` is a key column: one whose
 * text form is equal exactly when PostgreSQL holds the values equal (integers, uuid, and text
 * under a deterministic collation) and that some index holds (the primary key included). The
 * change feed carries these columns in every row image it sends. Numeric (7.0 = 7), citext and
 * nondeterministic collations never key.
 */
export function isKeyColumn(relid: string): string {
  return /* sql */ `a.attrelid = ${relid} AND a.attnum > 0 AND NOT a.attisdropped
     AND a.atttypid IN (${Object.keys(KEY_KINDS)
       .map((name) => `'${name}'::regtype`)
       .join(", ")})
     AND NOT EXISTS (SELECT 1 FROM pg_collation co
                      WHERE co.oid = a.attcollation AND NOT co.collisdeterministic)
     AND EXISTS (SELECT 1 FROM pg_index i
                  WHERE i.indrelid = ${relid} AND a.attnum = ANY (i.indkey::int2[]))`;
}

/** A table as a plan names it. */
export interface PlannedTable {
  readonly schema: string;
  readonly name: string;
}

/**
 * A column of a table as a plan's conditions compare it: its type (as `format_type` names it),
 * its kind of key when it has one (a key type under a deterministic collation: the change feed
 * carries it in every image that fits), whether its text sorts by code point (the C collation),
 * as livecmd compares text.
 */
export interface ColumnInfo {
  readonly type: string;
  readonly key?: KeyKind;
  /** Its collation holds texts equal only when they are the same bytes. */
  readonly deterministic: boolean;
  readonly byteOrdered: boolean;
}

/** The columns of each table, by `schema.name`, then by column name. */
export type TableColumns = ReadonlyMap<string, ReadonlyMap<string, ColumnInfo>>;

export function tableKey({ schema, name }: PlannedTable): string {
  return `${schema}.${name}`;
}

/**
 * The columns of `tables` now (a plan is cached with them). Text sorts by code point under the
 * C and POSIX collations, and the database's default when it is one of them.
 */
export async function columnsOf(
  client: PgClient,
  tables: readonly PlannedTable[],
): Promise<TableColumns> {
  const found = new Map<string, Map<string, ColumnInfo>>();
  if (tables.length === 0) return found;
  const { rows } = await client.query({
    text: /* sql */ `SELECT n.nspname AS schema, c.relname AS name, a.attname AS column,
                            format_type(a.atttypid, NULL) AS type,
                            coalesce(co.collisdeterministic, true) AS deterministic,
                            co.collname IN ('C', 'POSIX', 'ucs_basic')
                              OR (co.collname = 'default' AND d.datcollate IN ('C', 'POSIX')
                                  AND coalesce(to_jsonb(d) ->> 'datlocprovider', 'c') = 'c') AS "byteOrdered"
                       FROM unnest($1::text[], $2::text[]) t (schema, name)
                       JOIN pg_namespace n ON n.nspname = t.schema
                       JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.name
                       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                       LEFT JOIN pg_collation co ON co.oid = a.attcollation
                       JOIN pg_database d ON d.datname = current_database()`,
    values: [tables.map(({ schema }) => schema), tables.map(({ name }) => name)],
  });
  for (const row of rows as ColumnRow[]) {
    const key = tableKey(row);
    let columns = found.get(key);
    if (!columns) found.set(key, (columns = new Map()));
    const kind = row.deterministic ? KEY_KINDS[row.type] : undefined;
    columns.set(row.column, {
      type: row.type,
      ...(kind && { key: kind }),
      deterministic: row.deterministic,
      byteOrdered: row.byteOrdered === true,
    });
  }
  return found;
}

interface ColumnRow {
  schema: string;
  name: string;
  column: string;
  type: string;
  deterministic: boolean;
  byteOrdered: boolean | null;
}
