import { cutText } from "../../../text/cutText.ts";
import { logLine, RecurringProblem } from "../../../problems/keepServing.ts";
import type { TableChange } from "../../keyedAccess.ts";
import { HeldChanges } from "./heldChanges.ts";
import {
  imageColumnsOf,
  imageSql,
  RowImages,
  type ImageColumn,
  type ImageColumns,
} from "./rowImages.ts";
import type { SqliteConnection } from "../sqliteConnection.ts";
import { CHANGE_LOG_TABLE, quoteName, type SqliteSchema } from "../sqliteSchema.ts";

const LOG = quoteName(CHANGE_LOG_TABLE);
const LOG_TABLE_SQL = `CREATE TABLE ${LOG} (seq INTEGER PRIMARY KEY AUTOINCREMENT, "table" TEXT NOT NULL, keys TEXT NOT NULL, image TEXT NOT NULL)`;
const TRIGGER_PREFIX = "livecmd_";
const EVENTS = [
  ["insert", ["new"]],
  ["update", ["old", "new"]],
  ["delete", ["old"]],
] as const;
/**
 * How long an entry stays in the log once written. Every process reads the log within a poll of
 * a write, so only a process stalled this long finds entries gone, and then it re-runs every
 * read rather than miss a change (`readPage`).
 */
export const LOG_RETENTION_MS = 60_000;

/**
 * The bounds of one read of the log (docs/mcp.md, "What counts as a change"). A read takes at
 * most `pageEntries` entries per turn of the event loop, so clients are answered between pages
 * of a bulk write; it holds at most `heldRowImages` row images (one per entry), past which its
 * change is "any row" of every table it names; and an entry whose keys and image take more than
 * `entryChars` characters of SQL is any row of its table, never loaded.
 */
export const CHANGE_LOG_BOUNDS = {
  pageEntries: 1_000,
  heldRowImages: 10_000,
  entryChars: 4_096,
} as const;

/**
 * Where the log's numbering restarts: 2^32 short of SQLite's largest integer, past which every
 * write to a table of AUTOINCREMENT fails ("database or disk is full"), so no write would succeed
 * with livecmd's triggers in the file. No statement logs 2^32 entries, so one begun below it ends
 * below the largest; the numbering is further only when someone set the counter (or a number).
 */
const RENUMBER_AT = "9223372032559808512";

/** Whether the numbering is due to restart: the counter, or an entry's number, at or past `RENUMBER_AT`. */
const RENUMBER_DUE = `((SELECT seq FROM sqlite_sequence WHERE name = '${CHANGE_LOG_TABLE}') >= ${RENUMBER_AT} OR (SELECT max(seq) FROM ${LOG}) >= ${RENUMBER_AT})`;

/**
 * The number a trigger gives its entry: none (AUTOINCREMENT's next) but once the numbering is due
 * to restart, when AUTOINCREMENT's next may be past the largest integer and fail the app's write;
 * then the next after the entries below `RENUMBER_AT`, until a reader restarts the numbering
 * (`ChangeLog.prune`). Those entries leave the counter behind, so readers miss them until then,
 * and the restart makes every reader count every table as changed.
 */
const NEXT_SEQ = `CASE WHEN ${RENUMBER_DUE} THEN (SELECT coalesce(max(seq), 0) + 1 FROM ${LOG} WHERE seq < ${RENUMBER_AT}) END`;

/** One read of the log: up to the last entry logged when it began. */
interface Read {
  readonly target: bigint;
  readonly found: HeldChanges;
}

/**
 * An entry as a page reads it: its number after the page's first (SQLite integers may be past
 * what a JavaScript number holds), `keys` and `image` only when the entry is not too large.
 */
interface Entry {
  offset: number;
  table: unknown;
  large: number | null;
  keys: unknown;
  image: unknown;
}

export interface ChangeLogOptions {
  /** Whether a transaction is open on the connection (triggers are then installed inside it). */
  inTransaction?: boolean;
  retentionMs?: number;
  /** Where a line about entries no trigger of livecmd's wrote goes; stderr by default. */
  log?: (line: string) => void;
}

/**
 * The rows every write to the database file changed, from any writer: a trigger per table and
 * event, stored in the file, appends an image of each row before and after (its key columns, and
 * its other columns that are not too long: `rowImages.ts`) to the table `livecmd_changes`. So a
 * second `livecmd serve`, a script and the `sqlite3` shell are seen as well as this process, and
 * so are rows changed by the app's own triggers and by foreign-key cascades. The triggers use only `quote()`, which every SQLite has, so no writer needs
 * anything of livecmd's. Entries are numbered without gaps (AUTOINCREMENT, whose counter rolls
 * back with the write), so a reader that finds entries missing knows it, and counts every table
 * as changed. Entry numbers are held as bigints: they are SQLite integers, and another writer
 * may set the counter anywhere, even to the largest, where the numbering restarts (`NEXT_SEQ`)
 * rather than fail the app's writes.
 */
export class ChangeLog {
  /** The last entry read (reported, or held by the read in progress). */
  #seen: bigint;
  #read: Read | undefined;
  #readsBegun = 0;
  #readsEnded = 0;
  #columns: ImageColumns = new Map();
  /** High-water marks noted as time passed, oldest first: entries up to one are pruned once it is old. */
  #checkpoints: { at: number; high: bigint }[] = [];
  /** Set when this connection restarted the numbering: the next read counts every table as changed. */
  #renumbered = false;
  readonly #badEntries: RecurringProblem;
  readonly #images = new RowImages();

  private constructor(
    private readonly connection: SqliteConnection,
    private readonly retentionMs: number,
    log: (line: string) => void,
  ) {
    this.#seen = this.high();
    this.#badEntries = new RecurringProblem(log);
  }

  /**
   * The log of the database `connection` opened, created (with its triggers) if need be; undefined
   * when the connection cannot write it (a read-only file on which no writer has created it).
   */
  static open(
    connection: SqliteConnection,
    schema: SqliteSchema,
    { inTransaction = false, retentionMs = LOG_RETENTION_MS, log = logLine }: ChangeLogOptions = {},
  ): ChangeLog | undefined {
    try {
      connection.prepare(LOG_TABLE_SQL.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS")).run();
    } catch (error) {
      if (!isReadOnly(error)) throw error;
      if (!exists(connection)) return undefined;
    }
    const changeLog = new ChangeLog(connection, retentionMs, log);
    changeLog.#install(schema, inTransaction);
    return changeLog;
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

  /** The number of the last entry written, by anyone (whatever another writer set the counter to). */
  high(): bigint {
    const row = this.connection
      .prepare(
        `SELECT CAST(CAST(seq AS INTEGER) AS TEXT) AS seq FROM sqlite_sequence WHERE name = '${CHANGE_LOG_TABLE}'`,
      )
      .get() as { seq: string } | undefined;
    return BigInt(row?.seq ?? 0);
  }

  /** Whether entries were written (or the counter moved) since the last read, or a read is under way. */
  get behind(): boolean {
    return this.#read !== undefined || this.#renumbered || this.high() !== this.#seen;
  }

  /** How many reads have ended (a read ends when `readPage` returns its changes). */
  get readsEnded(): number {
    return this.#readsEnded;
  }

  /**
   * The number of the read whose end reports every entry logged now (compare `readsEnded`): the
   * read under way when it began after the last of them, else the next; undefined when every
   * entry has been reported. Counted in reads, not entries: another writer may move the counter
   * back.
   */
  readCoveringNow(): number | undefined {
    const high = this.high();
    if (this.#read) return this.#read.target === high ? this.#readsBegun : this.#readsBegun + 1;
    return high === this.#seen ? undefined : this.#readsBegun + 1;
  }

  /**
   * Reads the next page of the log: once the read has come to the last entry logged when it
   * began, the changes since the last read, one per table (every table when entries are missing,
   * pruned unread or the counter moved back); undefined while entries remain, to be read by the
   * next call, a turn of the event loop later.
   */
  readPage(): TableChange[] | undefined {
    const read = (this.#read ??= this.#begin());
    if (read.target > this.#seen) this.#page(read);
    else if (read.target < this.#seen) read.found.anyTable();
    if (read.found.everyTable) this.#seen = read.target;
    if (this.#seen !== read.target) return undefined;
    this.#end();
    return read.found.changes();
  }

  /** Ends the read under way and skips every entry logged so far: a change to every table covers them. */
  skip(): void {
    if (this.#read) this.#end();
    this.#seen = this.high();
  }

  #begin(): Read {
    this.#readsBegun += 1;
    const found = new HeldChanges(CHANGE_LOG_BOUNDS.heldRowImages);
    if (this.#renumbered) found.anyTable();
    this.#renumbered = false;
    return { target: this.high(), found };
  }

  #end(): void {
    this.#read = undefined;
    this.#readsEnded = this.#readsBegun;
  }

  /**
   * Deletes entries older than the retention, and restarts the numbering when it is due, when the
   * database is free at once: a busy database is left for a later call rather than kept waiting
   * for (the connection's busy timeout would block the process).
   */
  prune(now = Date.now()): void {
    const last = this.#checkpoints.at(-1);
    if (!last || now - last.at >= 1000) this.#checkpoints.push({ at: now, high: this.#seen });
    let due: bigint | undefined;
    while (this.#checkpoints[0] && now - this.#checkpoints[0].at >= this.retentionMs)
      due = this.#checkpoints.shift()!.high;
    const renumber = this.#renumberDue();
    if (due === undefined && !renumber) return;
    this.#atOnce(() => {
      if (renumber) this.#renumber();
      else this.connection.prepare(`DELETE FROM ${LOG} WHERE seq <= ?`).run(due);
    });
  }

  #renumberDue(): boolean {
    const row = this.connection.prepare(`SELECT ${RENUMBER_DUE} AS due`).get() as { due: number };
    return row.due === 1;
  }

  /**
   * Restarts the numbering from 1: the log's table made anew (in one transaction; its triggers
   * are left as they are). Every entry goes, read or not, so every reader must count every table
   * as changed: this one at its next read, those of other connections at the schema change.
   */
  #renumber(): void {
    this.#exec("BEGIN IMMEDIATE");
    try {
      this.#exec(`DROP TABLE ${LOG}`);
      this.#exec(LOG_TABLE_SQL);
      this.#exec("COMMIT");
    } catch (error) {
      this.#exec("ROLLBACK");
      throw error;
    }
    this.#read = undefined;
    this.#seen = 0n;
    this.#checkpoints = [];
    this.#renumbered = true;
  }

  /** Runs `write` if the database is free now (busy timeout 0), else leaves it for a later call. */
  #atOnce(write: () => void): void {
    const { timeout } = this.connection.prepare("PRAGMA busy_timeout").get() as { timeout: number };
    this.#exec("PRAGMA busy_timeout = 0");
    try {
      write();
    } catch (error) {
      // A read-only connection leaves both to the file's writers.
      if (!isBusy(error) && !isReadOnly(error)) throw error;
    } finally {
      this.#exec(`PRAGMA busy_timeout = ${timeout}`);
    }
  }

  /**
   * Reads up to `pageEntries` entries after the last one seen: each row image, or once the read
   * holds no more images, only which tables they changed. Fewer entries than numbers in the
   * range means some are missing (every table changed); so does a page SQLite cannot read (the
   * log's table altered by another writer): it is logged, and nothing is missed.
   */
  #page(read: Read): void {
    const from = this.#seen;
    const to = minimum(read.target, from + BigInt(CHANGE_LOG_BOUNDS.pageEntries));
    const expected = Number(to - from);
    try {
      const found = read.found.full
        ? this.#tablesBetween(from, to, read.found)
        : this.#entriesBetween(from, to, read.found);
      if (found !== expected) read.found.anyTable();
    } catch (error) {
      this.#badEntries.happened(
        `livecmd: entries ${from + 1n} to ${to} of ${CHANGE_LOG_TABLE} cannot be read (${cutText((error as Error).message, 200)}); every table counts as changed`,
      );
      read.found.anyTable();
    }
    this.#seen = to;
  }

  /** Adds the entries in (`from`, `to`] to `found`, row by row; returns how many there were. */
  #entriesBetween(from: bigint, to: bigint, found: HeldChanges): number {
    const entries = this.connection
      .prepare(
        `SELECT seq - ? AS offset, "table", length(keys) + length(image) > ${CHANGE_LOG_BOUNDS.entryChars} AS large,
           CASE WHEN length(keys) + length(image) <= ${CHANGE_LOG_BOUNDS.entryChars} THEN keys END AS keys,
           CASE WHEN length(keys) + length(image) <= ${CHANGE_LOG_BOUNDS.entryChars} THEN image END AS image
         FROM ${LOG} WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      )
      .all(from, from, to, Number(to - from) + 1) as Entry[];
    for (const entry of entries) {
      if (found.everyTable) break;
      this.#add(from + BigInt(entry.offset), entry, found);
    }
    return entries.length;
  }

  /** Adds the tables of the entries in (`from`, `to`] to `found`, as any row; returns how many entries there were. */
  #tablesBetween(from: bigint, to: bigint, found: HeldChanges): number {
    const tables = this.connection
      .prepare(
        `SELECT "table", count(*) AS entries FROM ${LOG} WHERE seq > ? AND seq <= ? GROUP BY "table"`,
      )
      .all(from, to) as { table: unknown; entries: number }[];
    let entries = 0;
    for (const { table, entries: count } of tables) {
      if (typeof table === "string") found.anyRow(table);
      else found.anyTable();
      entries += count;
    }
    return entries;
  }

  /**
   * One entry's change: its row image, or any row of its table when the entry is too large to
   * load; an entry no trigger of livecmd's wrote (another process can write anything into the
   * log) is logged, and counts as any row of its table, or of every table when its table cannot
   * be told.
   */
  #add(seq: bigint, entry: Entry, found: HeldChanges): void {
    const { table } = entry;
    if (typeof table !== "string") {
      this.#bad(seq, entry, "its table is not text");
      return found.anyTable();
    }
    if (entry.large || found.full) return found.anyRow(table);
    const columns = this.#columns.get(table);
    if (!columns) {
      this.#bad(seq, entry, "no table of that name has livecmd's triggers");
      return found.anyRow(table);
    }
    try {
      found.row(table, this.#images.of(columns, entry.keys, entry.image));
    } catch (error) {
      this.#bad(seq, entry, (error as Error).message);
      found.anyRow(table);
    }
  }

  #bad(seq: bigint, { table }: Entry, problem: string): void {
    const named =
      typeof table === "string"
        ? `table ${JSON.stringify(cutText(table, 100))}`
        : "a table that is not text";
    this.#badEntries.happened(
      `livecmd: entry ${seq} of ${CHANGE_LOG_TABLE} (${named}) is not one livecmd's triggers write: ${cutText(problem, 200)}; it counts as a change to every row of ${typeof table === "string" ? "its table" : "every table"}. Another process wrote it into the log`,
    );
  }

  #exec(sql: string): void {
    this.connection.prepare(sql).run();
  }
}

function minimum(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
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
  // An insert per image: each numbers its entry after the one before (`NEXT_SEQ`).
  const inserts = images.map((image) => {
    const { keys, values } = imageSql(image, columns);
    return `INSERT INTO ${LOG} (seq, "table", keys, image) VALUES (${NEXT_SEQ}, ${sqlText(table)}, ${keys}, ${values});`;
  });
  return `CREATE TRIGGER ${quoteName(triggerName(event, table))} AFTER ${event.toUpperCase()} ON ${quoteName(table)} BEGIN ${inserts.join(" ")} END`;
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

export function isReadOnly(error: unknown): boolean {
  return errorCode(error).startsWith("SQLITE_READONLY");
}

function isBusy(error: unknown): boolean {
  return errorCode(error).startsWith("SQLITE_BUSY") || errorCode(error) === "SQLITE_LOCKED";
}
