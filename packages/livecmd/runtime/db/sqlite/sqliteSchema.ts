import type { SqliteConnection } from "./sqliteConnection.ts";

/** How SQLite converts a value stored in, or compared with, a column (datatype3.html, 3.1). */
export type Affinity = "integer" | "real" | "numeric" | "text" | "blob";

/** The collations whose equality livecmd reproduces; a lookup under any other is a whole-table read. */
export type Collation = "BINARY" | "NOCASE" | "RTRIM";

/** A column that reads may look a table up by, compared as the lookup compares it. */
export interface KeyColumn {
  /** The name of this key in reads and row images: the column, and its collation unless BINARY. */
  readonly key: string;
  /** The SQL that names the column in a trigger's `new.`/`old.` (an identifier, or `rowid`). */
  readonly sql: string;
  readonly affinity: Affinity;
  readonly collation: Collation;
}

/**
 * A column of a table: its name, the SQL that names it in a trigger's `new.`/`old.`, its
 * affinity; `rowid` when it is the table's INTEGER PRIMARY KEY, which SQLite reads as the rowid.
 */
export interface TableColumn {
  readonly name: string;
  readonly sql: string;
  readonly affinity: Affinity;
  readonly rowid?: true;
}

/**
 * What one field of a b-tree's records holds (what `Column cursor, i` reads): a column of its
 * table, the rowid, or undefined (an expression, or the NULL a rowid table stores for its
 * INTEGER PRIMARY KEY, which SQLite reads as the rowid instead).
 */
export type Field = TableColumn | "rowid" | undefined;

/** What a b-tree holds: a table's rows by rowid, or entries ordered by a first column. */
export type Btree =
  /** `rowid` undefined: every name of the rowid is taken by a column. */
  | {
      readonly kind: "rowid table";
      readonly table: string;
      readonly rowid: KeyColumn | undefined;
      readonly fields: readonly Field[];
    }
  /** An index, or a WITHOUT ROWID table (its primary key's b-tree); `first` undefined: an expression, or another collation. */
  | {
      readonly kind: "index";
      readonly table: string;
      readonly first: KeyColumn | undefined;
      readonly fields: readonly Field[];
    };

/** The app's tables as livecmd's read tracking sees them. */
export interface SqliteSchema {
  /** `PRAGMA schema_version` when read: another means the schema changed since. */
  readonly version: number;
  readonly btrees: ReadonlyMap<number, Btree>;
  /** Every key column of each table: what the change log records of each changed row. */
  readonly keyColumns: ReadonlyMap<string, readonly KeyColumn[]>;
  /** Every column of each table, in declared order: what filters compare, and row images carry. */
  readonly columns: ReadonlyMap<string, readonly TableColumn[]>;
}

/** livecmd's own table in the app's database (the change log); never tracked itself. */
export const CHANGE_LOG_TABLE = "livecmd_changes";
/** livecmd's table of spent confirmations (`spentConfirmations.ts`), beside the log; not tracked either. */
export const SPENT_CONFIRMATIONS_TABLE = "livecmd_spent_confirmations";

interface SchemaRow {
  type: "table" | "index";
  name: string;
  tbl_name: string;
  rootpage: number;
}

interface IndexColumnRow {
  cid: number;
  name: string | null;
  coll: string;
}

interface TableColumnRow {
  name: string;
  type: string;
  pk: number;
  /** 2: a VIRTUAL generated column, which a rowid table's records do not store. */
  hidden: number;
}

/** A table's columns as `tableColumns` reads them: by name, in declared order, and what its records store. */
interface Columns {
  readonly byName: ReadonlyMap<string, TableColumn>;
  readonly stored: readonly Field[];
}

/** Reads the schema of the `main` database off sqlite_schema and the table and index pragmas. */
export function readSchema(connection: SqliteConnection): SqliteSchema {
  const { schema_version: version } = connection.prepare("PRAGMA schema_version").get() as {
    schema_version: number;
  };
  const rows = connection
    .prepare(
      `SELECT type, name, tbl_name, rootpage FROM sqlite_schema
        WHERE type IN ('table', 'index') AND rootpage > 0 AND tbl_name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
          AND tbl_name NOT IN ('${CHANGE_LOG_TABLE}', '${SPENT_CONFIRMATIONS_TABLE}')`,
    )
    .all() as SchemaRow[];
  const btrees = new Map<number, Btree>();
  const keyColumns = new Map<string, KeyColumn[]>();
  const columns = new Map<string, readonly TableColumn[]>();
  const addKey = (table: string, column: KeyColumn | undefined) => {
    if (!column) return;
    const keys = keyColumns.get(table) ?? [];
    if (!keys.some(({ key }) => key === column.key)) keys.push(column);
    keyColumns.set(table, keys);
  };
  for (const row of rows) {
    const table = tableColumns(connection, row.tbl_name);
    columns.set(row.tbl_name, [...table.byName.values()]);
    const btree =
      row.type === "index"
        ? indexBtree(connection, row.tbl_name, row.name, table)
        : tableBtree(connection, row.tbl_name, table);
    btrees.set(row.rootpage, btree);
    addKey(row.tbl_name, btree.kind === "index" ? btree.first : btree.rowid);
  }
  return { version, btrees, keyColumns, columns };
}

function tableBtree(connection: SqliteConnection, table: string, columns: Columns): Btree {
  const primaryKey = (
    connection.prepare("SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'").all(table) as {
      name: string;
    }[]
  )[0];
  if (tableKind(connection, table).wr && primaryKey)
    return indexBtree(connection, table, primaryKey.name, columns);
  return { kind: "rowid table", table, rowid: rowidColumn(columns), fields: columns.stored };
}

function indexBtree(
  connection: SqliteConnection,
  table: string,
  index: string,
  columns: Columns,
): Btree {
  const entries = connection
    .prepare("SELECT cid, name, coll FROM pragma_index_xinfo(?) ORDER BY seqno")
    .all(index) as IndexColumnRow[];
  const fields = entries.map(({ cid, name }): Field =>
    cid === -1 ? "rowid" : name == null ? undefined : columns.byName.get(name),
  );
  const [first] = entries;
  const collation = first && asCollation(first.coll);
  const affinity = first?.name != null ? columns.byName.get(first.name)?.affinity : undefined;
  if (!first || first.cid < 0 || first.name == null || !collation || !affinity)
    return { kind: "index", table, first: undefined, fields };
  const key = collation === "BINARY" ? first.name : `${first.name} COLLATE ${collation}`;
  return {
    kind: "index",
    table,
    first: { key, sql: quoteName(first.name), affinity, collation },
    fields,
  };
}

/** The rowid, by whichever of its three names no column of the table takes. */
function rowidColumn(columns: Columns): KeyColumn | undefined {
  const taken = new Set([...columns.byName.keys()].map((name) => name.toLowerCase()));
  const name = ["rowid", "_rowid_", "oid"].find((candidate) => !taken.has(candidate));
  return name === undefined
    ? undefined
    : { key: "rowid", sql: name, affinity: "integer", collation: "BINARY" };
}

function tableColumns(connection: SqliteConnection, table: string): Columns {
  const rows = connection
    .prepare("SELECT name, type, pk, hidden FROM pragma_table_xinfo(?)")
    .all(table) as TableColumnRow[];
  const { strict, wr } = tableKind(connection, table);
  // The INTEGER PRIMARY KEY of a rowid table is the rowid: its records hold NULL in its place.
  const primaryKey = rows.filter(({ pk }) => pk > 0);
  const aliased =
    !wr && primaryKey.length === 1 && primaryKey[0]!.type.toUpperCase() === "INTEGER"
      ? primaryKey[0]!.name
      : undefined;
  const byName = new Map<string, TableColumn>();
  for (const { name, type } of rows)
    byName.set(name, {
      name,
      sql: quoteName(name),
      affinity: affinityOf(type, strict === 1),
      ...(name === aliased && { rowid: true }),
    });
  const stored = rows
    .filter(({ hidden }) => hidden !== 2)
    .map(({ name }) => (name === aliased ? undefined : byName.get(name)));
  return { byName, stored };
}

function tableKind(connection: SqliteConnection, table: string): { wr: number; strict: number } {
  return connection
    .prepare("SELECT wr, strict FROM pragma_table_list(?) WHERE schema = 'main'")
    .get(table) as { wr: number; strict: number };
}

/** The affinity of a declared type, by SQLite's five rules in their order (a STRICT table's ANY has none). */
export function affinityOf(declared: string, strict: boolean): Affinity {
  const type = declared.toUpperCase();
  if (strict && type === "ANY") return "blob";
  if (type.includes("INT")) return "integer";
  if (/CHAR|CLOB|TEXT/.test(type)) return "text";
  if (type.includes("BLOB") || type === "") return "blob";
  if (/REAL|FLOA|DOUB/.test(type)) return "real";
  return "numeric";
}

function asCollation(name: string): Collation | undefined {
  const upper = name.toUpperCase();
  return upper === "BINARY" || upper === "NOCASE" || upper === "RTRIM" ? upper : undefined;
}

export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
