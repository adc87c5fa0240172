import type { RowImage } from "../../keyedAccess.ts";
import { storedKey } from "../sqliteKeys.ts";
import type { KeyColumn, SqliteSchema } from "../sqliteSchema.ts";
import { parseLiterals } from "../sqlLiterals.ts";

/**
 * Values longer than this (characters of text, bytes of a blob) are left out of row images: a
 * filter on such a column counts every change as touching it, and the log does not grow by a
 * document per write.
 */
export const IMAGE_VALUE_LIMIT = 256;

/** One column's entries in a row image (two collations of a key column share one column), and whether a long value may be left out. */
export interface ImageColumn {
  readonly entries: readonly KeyColumn[];
  readonly elidable: boolean;
}

/**
 * What the change log records of each table's rows, by the SQL that names a column in a trigger:
 * the key columns reads look rows up by, and every other column as it is stored (BINARY), which
 * filters compare.
 */
export type ImageColumns = ReadonlyMap<string, ReadonlyMap<string, ImageColumn>>;

export function imageColumnsOf(schema: SqliteSchema): ImageColumns {
  const tables = new Map<string, Map<string, ImageColumn>>();
  for (const { table } of schema.btrees.values()) tables.set(table, new Map());
  const add = (table: string, column: KeyColumn, elidable: boolean) => {
    const bySql = tables.get(table) ?? new Map<string, ImageColumn>();
    tables.set(table, bySql);
    // One entry per name: a column named like the rowid's key would stand for the rowid.
    if ([...bySql.values()].some(({ entries }) => entries.some(({ key }) => key === column.key)))
      return;
    const sharing = bySql.get(column.sql);
    bySql.set(column.sql, {
      entries: [...(sharing?.entries ?? []), column],
      elidable: (sharing?.elidable ?? true) && elidable,
    });
  };
  for (const [table, columns] of schema.keyColumns)
    for (const column of columns) add(table, column, false);
  for (const [table, columns] of schema.columns)
    for (const { name, sql, affinity, rowid } of columns)
      if (!rowid) add(table, { key: name, sql, affinity, collation: "BINARY" }, true);
  return tables;
}

/**
 * The SQL of an image of the row `image` names (a trigger's `old` or `new`, a table's alias): `keys`, the list of the
 * columns it records (as `quote()`d SQL names), and `values`, their `quote()`d values in the same
 * order. Key columns are always recorded; other columns unless their value is over the limit.
 */
export function imageSql(
  image: string,
  columns: ReadonlyMap<string, ImageColumn>,
): { keys: string; values: string } {
  const keys: string[] = [];
  const values: string[] = [];
  for (const [sql, { elidable }] of columns) {
    const key = sqlText(`,${sqlText(sql)}`);
    const value = `',' || quote(${image}.${sql})`;
    const fits = `length(${image}.${sql}) <= ${IMAGE_VALUE_LIMIT} OR ${image}.${sql} IS NULL`;
    keys.push(elidable ? `CASE WHEN ${fits} THEN ${key} ELSE '' END` : key);
    values.push(elidable ? `CASE WHEN ${fits} THEN ${value} ELSE '' END` : value);
  }
  // Each item begins with a comma, and the first is cut off.
  const list = (items: string[]) => (items.length > 0 ? `substr(${items.join(" || ")}, 2)` : "''");
  return { keys: list(keys), values: list(values) };
}

/**
 * Row images from what `imageSql` wrote: a row's columns, as an entry lists them (`keys`), with
 * their values (`image`), each as its readers compare it. The entries of a table mostly list the
 * same columns (a long value left out changes the list), so the last list read is kept rather
 * than read again. Text that is not such a list throws, saying what is wrong with it.
 */
export class RowImages {
  #keys = "";
  #names: unknown[] = [];

  of(columns: ReadonlyMap<string, ImageColumn>, keys: unknown, image: unknown): RowImage {
    if (typeof keys !== "string" || typeof image !== "string")
      throw new Error("its keys and image are not both text");
    if (keys !== this.#keys) {
      this.#names = parseLiterals(keys);
      this.#keys = keys;
    }
    const names = this.#names;
    const values = parseLiterals(image);
    if (names.length !== values.length)
      throw new Error(`it names ${names.length} columns and holds ${values.length} values`);
    const row: Record<string, string | null> = {};
    for (let i = 0; i < names.length; i++) {
      const sql = names[i];
      for (const column of (typeof sql === "string" && columns.get(sql)?.entries) || []) {
        const key = storedKey(values[i], column);
        if (key !== undefined) row[column.key] = key;
      }
    }
    return row;
  }
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
