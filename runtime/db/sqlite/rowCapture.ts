import { ANY_TABLE } from "../anyTable.ts";
import { anyRowsOf, type RowImage, type TableChange } from "../keyedAccess.ts";
import type { SqliteConnection } from "./sqliteConnection.ts";
import { storedKey } from "./sqliteKeys.ts";
import { quoteName, type KeyColumn, type SqliteSchema } from "./sqliteSchema.ts";

const CHANGED_ROW = "livecmd_row_changed";
const EVENTS = [
  ["insert", ["new"]],
  ["update", ["old", "new"]],
  ["delete", ["old"]],
] as const;

/**
 * The rows every write changes, seen inside SQLite: a temporary trigger per table and event
 * (on this connection only; nothing is written to the database file) calls back into the process
 * with the key columns of each row before and after. So rows changed by the app's own triggers
 * and by foreign-key cascades are seen as well as the statement's own. Changes wait here until
 * the connection commits them (`take`), and a rollback drops them (`dropSince`).
 */
export class RowCapture {
  #pending: TableChange[] = [];
  #columns = new Map<string, readonly KeyColumn[]>();

  constructor(private readonly connection: SqliteConnection) {
    connection.function(
      CHANGED_ROW,
      { varargs: true, deterministic: false, safeIntegers: true },
      (table, ...values) => this.#changed(String(table), values),
    );
  }

  /** (Re)creates the triggers for `schema`'s tables, dropping those of tables and keys gone. */
  install(schema: SqliteSchema): void {
    const existing = this.connection
      .prepare(
        `SELECT name FROM sqlite_temp_schema WHERE type = 'trigger' AND name LIKE 'livecmd\\_%' ESCAPE '\\'`,
      )
      .all() as { name: string }[];
    for (const { name } of existing)
      this.connection.prepare(`DROP TRIGGER temp.${quoteName(name)}`).run();
    this.#columns = new Map(schema.keyColumns);
    for (const { table } of schema.btrees.values())
      if (!this.#columns.has(table)) this.#columns.set(table, []);
    for (const [table, columns] of this.#columns)
      for (const [event, images] of EVENTS)
        this.connection.prepare(triggerSql(table, event, images, columns)).run();
  }

  /** A change to the schema: what any read reads may have moved, so every subscription re-runs. */
  schemaChanged(): void {
    this.#pending.push(anyRowsOf(ANY_TABLE));
  }

  /** How many changes are waiting: a mark to drop back to when a savepoint rolls back. */
  get mark(): number {
    return this.#pending.length;
  }

  dropSince(mark: number): void {
    this.#pending.length = mark;
  }

  /** The changes waiting, one per table, and forgets them. */
  take(): TableChange[] {
    const byTable = new Map<string, RowImage[] | undefined>();
    for (const { table, rows } of this.#pending) {
      const earlier = byTable.has(table) ? byTable.get(table) : [];
      byTable.set(table, earlier && rows ? [...earlier, ...rows] : undefined);
    }
    this.#pending = [];
    return [...byTable].map(([table, rows]) => (rows ? { table, rows } : anyRowsOf(table)));
  }

  #changed(table: string, values: unknown[]): void {
    const image: Record<string, string | null> = {};
    (this.#columns.get(table) ?? []).forEach((column, i) => {
      const key = storedKey(values[i], column);
      if (key !== undefined) image[column.key] = key;
    });
    this.#pending.push({ table, rows: [image] });
  }
}

function triggerSql(
  table: string,
  event: string,
  images: readonly ("old" | "new")[],
  columns: readonly KeyColumn[],
): string {
  const name = quoteName(`livecmd_${event}_${table}`);
  const calls = images.map((image) => {
    const values = columns.map((column) => `${image}.${column.sql}`);
    return `SELECT ${CHANGED_ROW}(${[sqlText(table), ...values].join(", ")});`;
  });
  return `CREATE TEMP TRIGGER ${name} AFTER ${event.toUpperCase()} ON main.${quoteName(table)} BEGIN ${calls.join(" ")} END`;
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
