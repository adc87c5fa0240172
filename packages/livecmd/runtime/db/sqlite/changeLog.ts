import { ANY_TABLE } from "../anyTable.ts";
import { anyRowsOf, type RowImage, type TableChange } from "../keyedAccess.ts";
import {
  decodeImage,
  imageColumnsOf,
  imageSql,
  type ImageColumn,
  type ImageColumns,
} from "./rowImages.ts";
import type { SqliteConnection } from "./sqliteConnection.ts";
import { CHANGE_LOG_TABLE, quoteName, type SqliteSchema } from "./sqliteSchema.ts";

const LOG = quoteName(CHANGE_LOG_TABLE);
const TRIGGER_PREFIX = "livecmd_";
const EVENTS = [
  ["insert", ["new"]],
  ["update", ["old", "new"]],
  ["delete", ["old"]],
] as const;
/**
 * How long an entry stays in the log once written. Every process reads the log within a poll of
 * a write, so only a process stalled this long finds entries gone, and then it re-runs every
 * read rather than miss a change (`read`).
 */
export const LOG_RETENTION_MS = 60_000;

/**
 * The rows every write to the database file changed, from any writer: a trigger per table and
 * event, stored in the file, appends an image of each row before and after (its key columns, and
 * its other columns that are not too long: `rowImages.ts`) to the table `livecmd_changes`. So a second `livecmd serve`, a script and the `sqlite3` shell are seen as
 * well as this process, and so are rows changed by the app's own triggers and by foreign-key
 * cascades. The triggers use only `quote()`, which every SQLite has, so no writer needs
 * anything of livecmd's. Entries are numbered without gaps (AUTOINCREMENT, whose counter rolls
 * back with the write), so a reader that finds entries missing knows it, and counts every table
 * as changed.
 */
export class ChangeLog {
  #seen: number;
  #columns: ImageColumns = new Map();
  /** High-water marks noted as time passed, oldest first: entries up to one are pruned once it is old. */
  #checkpoints: { at: number; high: number }[] = [];

  private constructor(
    private readonly connection: SqliteConnection,
    private readonly retentionMs: number,
  ) {
    this.#seen = this.high();
  }

  /**
   * The log of the database `connection` opened, created (with its triggers) if need be; undefined
   * when the connection cannot write it (a read-only file on which no writer has created it).
   */
  static open(
    connection: SqliteConnection,
    schema: SqliteSchema,
    { inTransaction = false, retentionMs = LOG_RETENTION_MS } = {},
  ): ChangeLog | undefined {
    try {
      connection
        .prepare(
          `CREATE TABLE IF NOT EXISTS ${LOG} (seq INTEGER PRIMARY KEY AUTOINCREMENT, "table" TEXT NOT NULL, keys TEXT NOT NULL, image TEXT NOT NULL)`,
        )
        .run();
    } catch (error) {
      if (!isReadOnly(error)) throw error;
      if (!exists(connection)) return undefined;
    }
    const log = new ChangeLog(connection, retentionMs);
    log.#install(schema, inTransaction);
    return log;
  }

  /**
   * Makes the triggers those of `schema`'s tables and key columns, dropping those of tables gone.
   * Their text depends on the schema alone, so every process finds the same ones and leaves them
   * be: the schema changes only when they are new or different.
   */
  #install(schema: SqliteSchema, inTransaction: boolean): void {
    this.#columns = imageColumnsOf(schema);
    const wanted = new Map<string, string>();
    for (const [table, columns] of this.#columns)
      for (const [event, images] of EVENTS)
        wanted.set(triggerName(event, table), triggerSql(table, event, images, columns));
    const current = (): Map<string, string> => new Map(installedTriggers(this.connection));
    if (sameTriggers(current(), wanted)) return;
    if (!inTransaction) this.#exec("BEGIN IMMEDIATE");
    try {
      const installed = current();
      for (const [name, sql] of installed)
        if (wanted.get(name) !== sql) this.#exec(`DROP TRIGGER main.${quoteName(name)}`);
      for (const [name, sql] of wanted) if (installed.get(name) !== sql) this.#exec(sql);
      if (!inTransaction) this.#exec("COMMIT");
    } catch (error) {
      if (!inTransaction) this.#exec("ROLLBACK");
      if (!isReadOnly(error)) throw error;
    }
  }

  /** The number of the last entry written, by anyone. */
  high(): number {
    const row = this.connection
      .prepare(`SELECT seq FROM sqlite_sequence WHERE name = '${CHANGE_LOG_TABLE}'`)
      .get() as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /** Whether entries were written since the last `read`. */
  get behind(): boolean {
    return this.high() > this.#seen;
  }

  /** The changes logged since the last `read`, one per table; every table when some were pruned unread. */
  read(): TableChange[] {
    const rows = this.connection
      .prepare(
        `SELECT seq, "table", keys, image FROM ${LOG} WHERE seq > ?
         UNION ALL SELECT seq, NULL, NULL, NULL FROM sqlite_sequence WHERE name = '${CHANGE_LOG_TABLE}'`,
      )
      .all(this.#seen) as LogRow[];
    const entries = rows.filter((row) => row.table !== null);
    const high = rows.find((row) => row.table === null)?.seq ?? 0;
    // Fewer entries than numbers: some were pruned unread. A lower high: the log was dropped.
    const missed = entries.length !== high - this.#seen;
    this.#seen = high;
    if (missed) return [anyRowsOf(ANY_TABLE)];
    return byTable(entries.map((entry) => this.#change(entry)));
  }

  /**
   * Deletes entries older than the retention, when the database is free at once: a busy database
   * is left for a later call rather than kept waiting for (the connection's busy timeout would
   * block the process).
   */
  prune(now = Date.now()): void {
    const last = this.#checkpoints.at(-1);
    if (!last || now - last.at >= 1000) this.#checkpoints.push({ at: now, high: this.#seen });
    let due: number | undefined;
    while (this.#checkpoints[0] && now - this.#checkpoints[0].at >= this.retentionMs)
      due = this.#checkpoints.shift()!.high;
    if (due === undefined) return;
    const { timeout } = this.connection.prepare("PRAGMA busy_timeout").get() as { timeout: number };
    this.#exec("PRAGMA busy_timeout = 0");
    try {
      this.connection.prepare(`DELETE FROM ${LOG} WHERE seq <= ?`).run(due);
    } catch (error) {
      if (!isBusy(error)) throw error;
    } finally {
      this.#exec(`PRAGMA busy_timeout = ${timeout}`);
    }
  }

  #change({ table, keys, image }: LogRow): TableChange {
    const columns = this.#columns.get(table!);
    if (!columns) return anyRowsOf(table!);
    return { table: table!, rows: [decodeImage(keys!, image!, columns)] };
  }

  #exec(sql: string): void {
    this.connection.prepare(sql).run();
  }
}

interface LogRow {
  seq: number;
  table: string | null;
  keys: string | null;
  image: string | null;
}

/** One change per table: the images of every row, or none when a change of it is whole. */
function byTable(changes: readonly TableChange[]): TableChange[] {
  const rows = new Map<string, RowImage[] | undefined>();
  for (const { table, rows: images } of changes) {
    const earlier = rows.has(table) ? rows.get(table) : [];
    rows.set(table, earlier && images ? [...earlier, ...images] : undefined);
  }
  return [...rows].map(([table, images]) => (images ? { table, rows: images } : anyRowsOf(table)));
}

function triggerName(event: string, table: string): string {
  return `${TRIGGER_PREFIX}${event}_${table}`;
}

function triggerSql(
  table: string,
  event: string,
  images: readonly ("old" | "new")[],
  columns: ReadonlyMap<string, ImageColumn>,
): string {
  const rows = images.map((image) => {
    const { keys, values } = imageSql(image, columns);
    return `(${sqlText(table)}, ${keys}, ${values})`;
  });
  return `CREATE TRIGGER ${quoteName(triggerName(event, table))} AFTER ${event.toUpperCase()} ON ${quoteName(table)} BEGIN INSERT INTO ${LOG} ("table", keys, image) VALUES ${rows.join(", ")}; END`;
}

function installedTriggers(connection: SqliteConnection): [string, string][] {
  const rows = connection
    .prepare(
      `SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '${TRIGGER_PREFIX.replace("_", "\\_")}%' ESCAPE '\\'`,
    )
    .all() as { name: string; sql: string }[];
  return rows.map(({ name, sql }) => [name, sql]);
}

function sameTriggers(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([name, sql]) => b.get(name) === sql);
}

function exists(connection: SqliteConnection): boolean {
  return (
    connection
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
      .get(CHANGE_LOG_TABLE) !== undefined
  );
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** SQLite's primary result codes that node:sqlite reports by number, by the names better-sqlite3 gives them. */
const PRIMARY_CODES: Readonly<Record<number, string>> = {
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
};

/**
 * The SQLite result code of a failed statement, by name: better-sqlite3 names it in `code`
 * (extended: "SQLITE_READONLY_DBMOVED"); node:sqlite's `code` is always "ERR_SQLITE_ERROR" and
 * it numbers the result in `errcode`, whose low byte is the primary code.
 */
function errorCode(error: unknown): string {
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof errcode === "number") return PRIMARY_CODES[errcode & 0xff] ?? String(errcode);
  return String(code ?? "");
}

function isReadOnly(error: unknown): boolean {
  return errorCode(error).startsWith("SQLITE_READONLY");
}

function isBusy(error: unknown): boolean {
  return errorCode(error).startsWith("SQLITE_BUSY") || errorCode(error) === "SQLITE_LOCKED";
}
