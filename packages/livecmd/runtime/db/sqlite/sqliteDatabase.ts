import { AsyncLocalStorage } from "node:async_hooks";
import type { AppDatabase, RunResult, SqlParam, TableObserver } from "../database.ts";
import { ANY_TABLE } from "../anyTable.ts";
import { anyRowsOf, type TableChange } from "../keyedAccess.ts";
import { ChangeLog } from "./changeLog.ts";
import { readingNumbers, type SqliteConnection, type SqliteStatement } from "./sqliteConnection.ts";
import { readSchema, type SqliteSchema } from "./sqliteSchema.ts";
import { boundReads, StatementPlans } from "./statementPlans.ts";
import { throwIfCancelled } from "../runCancelled.ts";
import { keepServing } from "../../live/keepServing.ts";

/** The transaction open on a connection: who may use the connection until `done`. */
interface OpenTransaction {
  readonly done: Promise<void>;
  savepoints: number;
}

/** How often a connection looks for writes made by other connections to its database file. */
export const OTHER_WRITERS_POLL_MS = 25;

/** A `caughtUp` waiting for the end of the log's read numbered `read`. */
interface Waiter {
  readonly read: number;
  readonly resolve: () => void;
}

/** What every view of one connection shares: the connection, its statements and their plans, its changes. */
class Connection {
  readonly statements = new Map<string, SqliteStatement>();
  readonly plans: StatementPlans;
  /** Statements made from within a transaction's callback carry it (awaited or not). */
  readonly scope = new AsyncLocalStorage<OpenTransaction>();
  open: OpenTransaction | undefined;
  #schema: SqliteSchema;
  /** Undefined on a read-only file without one: then any write by another connection changes every table. */
  #log: ChangeLog | undefined;
  #dataVersion: number;
  #schemaChanged = false;
  /** Whether the next page of the log is to be read on a later turn (or once a transaction ends). */
  #pageDue = false;
  #waiters: Waiter[] = [];
  readonly #poll: NodeJS.Timeout;
  readonly #nextPage = keepServing("reading the SQLite change log", () => {
    this.#pageDue = false;
    this.#readLog();
  });
  /** The handle for livecmd's own statements, which must read numbers. */
  readonly #own: SqliteConnection;

  constructor(
    readonly handle: SqliteConnection,
    private readonly changed: (changes: readonly TableChange[]) => void,
  ) {
    const own = (this.#own = readingNumbers(handle));
    this.plans = new StatementPlans(own, () => this.#schema);
    this.#schema = this.#openLog(false);
    this.#dataVersion = this.#pragma("data_version");
    this.#poll = setInterval(
      keepServing("polling the SQLite change log", () => this.otherWriters()),
      OTHER_WRITERS_POLL_MS,
    ).unref();
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.handle.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** The transaction a statement from here must wait for: one open that it is not part of. */
  foreignTransaction(): OpenTransaction | undefined {
    const open = this.open;
    return open && this.scope.getStore() !== open ? open : undefined;
  }

  exec(sql: string): void {
    this.prepare(sql).run();
  }

  /**
   * After a statement that may have written: a changed schema is read again (triggers, plans);
   * outside a transaction what the statement changed is reported now, inside one at its commit.
   */
  wrote(): void {
    this.#readSchemaIfChanged();
    if (!this.open) this.committed();
  }

  /**
   * Reports what the writes committed (or made outside a transaction) changed, by anyone: a
   * changed schema at once as every table; the log's first page at once, the rest a page a turn.
   */
  committed(): void {
    if (this.#schemaChanged) {
      this.#schemaChanged = false;
      this.#log?.skip();
      this.#report([anyRowsOf(ANY_TABLE)]);
    }
    this.#readLog();
  }

  /**
   * Reports what other connections to the file committed since last asked. Not while a
   * transaction is open here: the log read inside it would see its uncommitted entries (and its
   * commit reads the log anyway).
   */
  otherWriters(): void {
    if (this.open) return;
    const dataVersion = this.#pragma("data_version");
    const moved = dataVersion !== this.#dataVersion;
    this.#dataVersion = dataVersion;
    if (moved) this.#readSchemaIfChanged();
    if (this.#log ? this.#schemaChanged || this.#log.behind : moved) {
      if (!this.#log) this.#schemaChanged = true;
      this.committed();
    } else this.#log?.prune();
  }

  /** Resolves once every entry logged before the call has been reported (outside a transaction). */
  reported(): Promise<void> {
    const read = this.#log?.readCoveringNow();
    if (read === undefined) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ read, resolve }));
  }

  /** Stops reading the log (a page due is dropped, a `caughtUp` waiting resolves) and closes the handle. */
  close(): void {
    clearInterval(this.#poll);
    this.#log = undefined;
    for (const { resolve } of this.#waiters.splice(0)) resolve();
    (this.handle as { close?: () => void }).close?.();
  }

  /**
   * Reads a page of the log, unless one is due on a later turn already or a transaction is open
   * (its commit, or its end, carries on). Between pages other work runs: reads, other clients.
   */
  #readLog(): void {
    const log = this.#log;
    if (!log || this.#pageDue) return;
    if (this.open) {
      this.#pageDue = true;
      void this.open.done.then(this.#nextPage);
      return;
    }
    const changes = log.readPage();
    if (changes) {
      this.#report(changes);
      log.prune();
    }
    if (!changes || log.behind) {
      this.#pageDue = true;
      setImmediate(this.#nextPage);
    }
  }

  /** Tells `changed`, then every `caughtUp` the report covers: all of them when it is every table. */
  #report(changes: readonly TableChange[]): void {
    try {
      if (changes.length > 0) this.changed(changes);
    } finally {
      const everyTable = changes.some(({ table }) => table === ANY_TABLE);
      const ended = this.#log?.readsEnded ?? Infinity;
      const waiting = this.#waiters;
      this.#waiters = [];
      for (const waiter of waiting)
        if (everyTable || waiter.read <= ended) waiter.resolve();
        else this.#waiters.push(waiter);
    }
  }

  /** A changed schema: what any read reads may have moved, so every subscription re-runs. */
  #readSchemaIfChanged(): void {
    if (this.#pragma("schema_version") === this.#schema.version) return;
    this.#schema = this.#openLog(this.open !== undefined);
    this.plans.forget();
    this.#schemaChanged = true;
  }

  /**
   * Opens the change log with triggers for the schema as it is, and returns the schema read
   * again after: installing triggers changes its version, which must not count as a change.
   */
  #openLog(inTransaction: boolean): SqliteSchema {
    this.#log = ChangeLog.open(this.#own, readSchema(this.#own), { inTransaction });
    return readSchema(this.#own);
  }

  #pragma(name: "data_version" | "schema_version"): number {
    return (this.#own.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name]!;
  }
}

/**
 * A Database over one SQLite connection (better-sqlite3 or node:sqlite): it tells its observer which rows each statement
 * reads, and `changed` which rows each committed write to the file changed, whoever wrote it
 * (row by row, from the change log).
 * Statements run at once (both drivers are synchronous) unless another command's transaction
 * is open on the connection: a transaction's callback may await, and what others do meanwhile
 * must neither join it nor see its uncommitted rows, so they queue until it ends.
 */
export class SqliteDatabase implements AppDatabase {
  readonly #connection: Connection;

  constructor(
    connection: SqliteConnection | Connection,
    changed: (changes: readonly TableChange[]) => void = () => {},
    private readonly observer?: TableObserver,
  ) {
    this.#connection =
      connection instanceof Connection ? connection : new Connection(connection, changed);
  }

  get connection(): SqliteConnection {
    return this.#connection.handle;
  }

  /** The same connection and caches, reporting reads to another observer (one per command run). */
  observedBy(observer: TableObserver): SqliteDatabase {
    return new SqliteDatabase(this.#connection, undefined, observer);
  }

  all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return this.#observed(sql, params, (statement) => statement.all(...params).map(plain) as T[]);
  }

  get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return this.#observed(
      sql,
      params,
      (statement) => plain(statement.get(...params)) as T | undefined,
    );
  }

  run(sql: string, ...params: SqlParam[]): Promise<RunResult> {
    return this.#observed(sql, params, (statement) => {
      const { changes, lastInsertRowid } = statement.run(...params);
      return { changes: Number(changes), lastInsertRowid };
    });
  }

  async transaction<T>(fn: () => Promise<T> | T): Promise<T> {
    const connection = this.#connection;
    const current = connection.scope.getStore();
    if (current !== undefined && current === connection.open)
      return savepoint(connection, current, fn);
    for (let open = connection.open; open; open = connection.open) await open.done;
    let finish!: () => void;
    const open: OpenTransaction = {
      done: new Promise<void>((resolve) => (finish = resolve)),
      savepoints: 0,
    };
    connection.open = open;
    try {
      connection.exec("BEGIN");
      const result = await settle(connection, () => connection.scope.run(open, fn), "ROLLBACK");
      commit(connection);
      connection.open = undefined;
      connection.committed();
      return result;
    } finally {
      connection.open = undefined;
      finish();
    }
  }

  /**
   * Other connections' writes are seen within a poll; this reads them now, and resolves once
   * every write committed before the call has been reported, a page of the log a turn. A
   * transaction open on the connection is waited for; inside one (whose writes are reported at
   * its commit, and during which the log is not read) it resolves at once.
   */
  async caughtUp(): Promise<void> {
    const connection = this.#connection;
    for (let open = connection.foreignTransaction(); open; open = connection.foreignTransaction())
      await open.done;
    if (connection.open) return;
    connection.otherWriters();
    await connection.reported();
  }

  async close(): Promise<void> {
    this.#connection.close();
  }

  #observed<T>(
    sql: string,
    params: readonly SqlParam[],
    execute: (statement: SqliteStatement) => T,
  ): Promise<T> {
    const waitFor = this.#connection.foreignTransaction();
    if (waitFor) return waitFor.done.then(() => this.#observed(sql, params, execute));
    try {
      return Promise.resolve(this.#now(sql, params, execute));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Reads are reported before the statement runs, changes once it ran (`INSERT ... RETURNING` included). */
  #now<T>(sql: string, params: readonly SqlParam[], execute: (statement: SqliteStatement) => T): T {
    // SQLite runs a statement to its end on this thread: a cancelled run stops between them.
    throwIfCancelled(this.observer?.signal);
    const connection = this.#connection;
    const statement = connection.prepare(sql);
    const plan = connection.plans.of(sql);
    this.observer?.read?.(boundReads(plan.reads, params));
    try {
      return execute(statement);
    } finally {
      if (plan.mayWrite) connection.wrote();
    }
  }
}

/**
 * A row as the app gets it from any driver: node:sqlite's rows have no prototype (no `toString`,
 * and unequal to a plain object in `assert.deepStrictEqual`), better-sqlite3's and pg's do.
 */
function plain(row: unknown): unknown {
  return row !== null && typeof row === "object" && Object.getPrototypeOf(row) === null
    ? { ...row }
    : row;
}

/** A transaction within a transaction: a savepoint, whose writes are dropped if it rolls back. */
async function savepoint<T>(
  connection: Connection,
  open: OpenTransaction,
  fn: () => Promise<T> | T,
): Promise<T> {
  const name = `livecmd_${(open.savepoints += 1)}`;
  connection.exec(`SAVEPOINT ${name}`);
  const result = await settle(connection, fn, `ROLLBACK TO ${name}`);
  connection.exec(`RELEASE ${name}`);
  return result;
}

/** Runs `fn`; when it throws, undoes its work with `undo` and throws on. */
async function settle<T>(
  connection: Connection,
  fn: () => Promise<T> | T,
  undo: string,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    connection.exec(undo);
    throw error;
  }
}

/** COMMIT, or ROLLBACK when COMMIT fails (a deferred constraint), so the connection is usable after. */
function commit(connection: Connection): void {
  try {
    connection.exec("COMMIT");
  } catch (error) {
    try {
      connection.exec("ROLLBACK");
    } catch {
      // Already rolled back by SQLite itself.
    }
    throw error;
  }
}
