import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import type { AppDatabase, RunResult, SqlParam, TableObserver } from "../database.ts";
import { ANY_TABLE } from "../anyTable.ts";
import { anyRowsOf, type TableChange } from "../keyedAccess.ts";
import { RunScope } from "../runScope.ts";
import type { ChangeLog } from "./changes/changeLog.ts";
import { readingNumbers, type SqliteConnection, type SqliteStatement } from "./sqliteConnection.ts";
import { sqliteDialect } from "./sqliteDialect.ts";
import type { SqliteLibrary } from "./sqliteLibrary.ts";
import type { SessionStore, SharedState, StoredSpentConfirmations } from "../sharedState.ts";
import { readSchema, type SqliteSchema } from "./sqliteSchema.ts";
import { createSpentTable } from "./spentConfirmations.ts";
import type { StatementPlan } from "./plan/planStatement.ts";
import { StatementPlans, type ReturnedRows } from "./plan/statementPlans.ts";
import { throwIfCancelled } from "../runCancelled.ts";
import { keepServing, logLine } from "../../problems/keepServing.ts";

/** The transaction open on a connection: who may use the connection until `done`. */
interface OpenTransaction {
  readonly done: Promise<void>;
  savepoints: number;
}

/** A transaction the app began through its handle (Kysely's, `BEGIN`): the run it began in. */
interface HandleTransaction {
  readonly run: TableObserver | undefined;
  readonly done: Promise<void>;
  readonly end: () => void;
}

/** How often a connection looks for writes made by other connections to its database file. */
export const OTHER_WRITERS_POLL_MS = 25;

/** A connection of a library livecmd does not know: only `ctx.db`'s statements are observed. */
const UNKNOWN_LIBRARY: SqliteLibrary = {
  name: "SQLite",
  accepts: () => true,
  inTransaction: (handle) => {
    const flags = handle as { inTransaction?: unknown; isTransaction?: unknown };
    const flag = flags.inTransaction ?? flags.isTransaction;
    return typeof flag === "boolean" ? flag : undefined;
  },
  observe: (handle) => handle,
};

/** A `caughtUp` waiting for the end of the log's read numbered `read`. */
interface Waiter {
  readonly read: number;
  readonly resolve: () => void;
}

/** What every view of one connection shares: the connection, its statements and their plans, its changes. */
class ConnectionCore {
  readonly statements = new Map<string, SqliteStatement>();
  readonly plans: StatementPlans;
  /** Statements made from within a transaction's callback carry it (awaited or not). */
  readonly scope = new AsyncLocalStorage<OpenTransaction>();
  open: OpenTransaction | undefined;
  /** Set while a transaction the app began through its handle is open. */
  handleTransaction: HandleTransaction | undefined;
  /** Whether the file keeps spent confirmations (`spentConfirmations.ts`): not a read-only one. */
  readonly keepsSpent: boolean;
  #schema: SqliteSchema;
  /** Undefined on a read-only file without one: then any write by another connection changes every table. */
  #log: ChangeLog | undefined;
  #dataVersion: number;
  #schemaChanged = false;
  #lookAgainQueued = false;
  #closed = false;
  /** Whether the next page of the log is to be read on a later turn (or once a transaction ends). */
  #pageDue = false;
  #waiters: Waiter[] = [];
  readonly #poll: NodeJS.Timeout;
  readonly #nextPage = keepServing("reading the SQLite change log", () => {
    this.#pageDue = false;
    this.#readLog();
  });
  readonly #lookAgain = keepServing(
    "reading a transaction committed through the app's handle",
    () => {
      this.#lookAgainQueued = false;
      if (this.#closed || this.inTransaction) return;
      this.#noteHandleTransaction(undefined);
      this.committed();
    },
  );
  /** Commands already named on the log for ending with a transaction open on the handle. */
  readonly #leftOpen = new Set<string>();
  readonly #stopWatchingRuns: () => void;
  /** The connection as livecmd prepares `ctx.db`'s statements: past the observation of the app's. */
  readonly #unobserved: SqliteConnection;
  /** The same for livecmd's own statements, which must read numbers. */
  readonly #own: SqliteConnection;

  constructor(
    readonly handle: SqliteConnection,
    private readonly library: SqliteLibrary,
    private readonly changed: (changes: readonly TableChange[]) => void,
    readonly runs: RunScope,
  ) {
    this.#unobserved = library.observe(handle, {
      statement: (sql, params, execute) => this.observed(sql, params, runs.observer(), execute),
      unplanned: (execute) => {
        const observer = runs.observer();
        throwIfCancelled(observer?.signal);
        try {
          return execute();
        } finally {
          this.#noteHandleTransaction(observer);
          this.wrote();
        }
      },
    });
    const own = (this.#own = readingNumbers(this.#unobserved));
    this.plans = new StatementPlans(
      own,
      () => this.#schema,
      (sql) => sqliteDialect.planReads({ connection: own, schema: this.#schema }, sql),
    );
    this.keepsSpent = createSpentTable(own);
    this.#schema = this.#openLog(false);
    this.#dataVersion = this.#pragma("data_version");
    this.#poll = setInterval(
      keepServing("polling the SQLite change log", () => this.otherWriters()),
      OTHER_WRITERS_POLL_MS,
    ).unref();
    this.#stopWatchingRuns = runs.onEnded(
      keepServing("rolling back a transaction a command left open", (run) => this.#ended(run)),
    );
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.#unobserved.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** `AppDatabase.handleText`: the library, and the file (`PRAGMA database_list`: its path, or none in memory). */
  handleText(): string {
    const main = this.#own.prepare("PRAGMA database_list").get() as { file?: string } | undefined;
    const where = main?.file ? path.basename(main.file) : "a database in memory";
    return `the ${this.library.name} connection to ${where}`;
  }

  /**
   * Whether a transaction is open on the connection: `ctx.db`'s, or one the app began through its
   * handle (Drizzle's, Kysely's, `BEGIN`), when its library can tell.
   */
  get inTransaction(): boolean {
    return this.library.inTransaction(this.handle) ?? this.open !== undefined;
  }

  /**
   * The end of the transaction a `ctx.db` statement of `run` must wait for: one open that it is
   * not part of (`ctx.db`'s of another callback, or one another run began through the handle).
   */
  foreignTransaction(run: TableObserver | undefined): Promise<void> | undefined {
    const open = this.open;
    if (open) return this.scope.getStore() !== open ? open.done : undefined;
    const handle = this.handleTransaction;
    return handle && handle.run !== run ? handle.done : undefined;
  }

  exec(sql: string): void {
    this.prepare(sql).run();
  }

  /**
   * Runs one statement for `observer`'s run (none: a statement of no run): its reads are
   * reported before it runs, what it changed once it ran (`INSERT ... RETURNING` included). A
   * page's reads are reported once it ran, narrowed by the rows it returned (`returned` reads
   * them off its result, when the caller knows their shape): it ran to its end on this thread,
   * so no change was reported in between.
   */
  observed<T>(
    sql: string,
    params: readonly unknown[],
    observer: TableObserver | undefined,
    execute: () => T,
    returned?: (result: T) => ReturnedRows,
  ): T {
    // SQLite runs a statement to its end on this thread: a cancelled run stops between them.
    throwIfCancelled(observer?.signal);
    const plan = this.plans.of(sql);
    if (observer?.read && !observer.tablesOnly && returned && plan.reads.some(({ page }) => page))
      return this.#paged(plan.reads, params, observer, execute, returned);
    if (observer?.read)
      observer.read(
        observer.tablesOnly
          ? plan.reads.map(({ table }) => ({ table }))
          : this.plans.bind(plan.reads, params),
      );
    try {
      return execute();
    } finally {
      if (plan.mayWrite) {
        this.#noteHandleTransaction(observer);
        this.wrote();
      }
    }
  }

  /** A page's statement (a read, which writes nothing): run, then its reads told, narrowed when it ran. */
  #paged<T>(
    planned: StatementPlan["reads"],
    params: readonly unknown[],
    observer: TableObserver,
    execute: () => T,
    returned: (result: T) => ReturnedRows,
  ): T {
    const binding = this.plans.binding(params);
    const bound = binding.reads(planned);
    let ran: { result: T } | undefined;
    try {
      ran = { result: execute() };
      return ran.result;
    } finally {
      observer.read!(ran ? binding.paged(planned, bound, returned(ran.result)) : bound);
    }
  }

  /** After a statement of `run` that may have begun or ended a transaction through the handle. */
  #noteHandleTransaction(run: TableObserver | undefined): void {
    if (this.open) return;
    const open = this.library.inTransaction(this.handle);
    if (open && !this.handleTransaction) {
      let end!: () => void;
      const done = new Promise<void>((resolve) => (end = resolve));
      this.handleTransaction = { run, done, end };
    } else if (!open && this.handleTransaction) {
      this.handleTransaction.end();
      this.handleTransaction = undefined;
    }
  }

  /**
   * A run ended with the transaction it began through the app's handle open: nothing of the run's
   * will end it now, and until something does every other run's `ctx.db` statement waits for it
   * and other processes' writes fail as locked. It is rolled back (what the run wrote in it is
   * undone, as when a `ctx.db.transaction` callback throws), and its command named on the log.
   */
  #ended(run: TableObserver): void {
    if (this.#closed || this.handleTransaction?.run !== run) return;
    if (this.library.inTransaction(this.handle)) {
      this.exec("ROLLBACK");
      this.#sayLeftOpen(run.command);
    }
    this.#noteHandleTransaction(run);
    this.wrote();
  }

  /** The line about a command that left a transaction open, said once per command. */
  #sayLeftOpen(command = "a command"): void {
    if (this.#leftOpen.has(command)) return;
    this.#leftOpen.add(command);
    logLine(
      `livecmd: ${command} ended with a transaction open on ${this.handleText()}, begun through the app's own handle (a BEGIN, or a library's transaction it did not await); livecmd rolled it back, undoing what ${command} wrote in it, so that other commands and processes go on. End every transaction ${command} begins before it returns or throws (COMMIT, or ROLLBACK in a finally), or use ctx.db.transaction(fn), which does; said once for ${command}`,
    );
  }

  /**
   * After a statement that may have written: a changed schema is read again (triggers, plans);
   * outside a transaction what the statement changed is reported now, inside one at its commit.
   */
  wrote(): void {
    this.#readSchemaIfChanged();
    if (!this.inTransaction) this.committed();
    else if (!this.open) this.#lookAgainAfterThisJob();
  }

  /**
   * A transaction the app began through its handle may end past livecmd's sight (better-sqlite3's
   * `db.transaction(fn)`, Drizzle's, commits by itself): once the job that wrote in it is done,
   * what it committed is reported, as `ctx.db`'s is at its commit.
   */
  #lookAgainAfterThisJob(): void {
    if (this.#lookAgainQueued) return;
    this.#lookAgainQueued = true;
    queueMicrotask(this.#lookAgain);
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
    if (this.inTransaction) return;
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
    this.#closed = true;
    clearInterval(this.#poll);
    this.#stopWatchingRuns();
    this.#log = undefined;
    for (const { resolve } of this.#waiters.splice(0)) resolve();
    (this.handle as { close?: () => void }).close?.();
  }

  /**
   * Reads a page of the log, unless one is due on a later turn already or a transaction is open
   * (its commit, or its end, carries on: `ctx.db`'s, one the app began through its handle and
   * livecmd saw begin, else the statement or the job that ends it, else the poll). Between pages
   * other work runs: reads, other clients.
   */
  #readLog(): void {
    const log = this.#log;
    if (!log || this.#pageDue) return;
    if (this.inTransaction) {
      const end = this.open?.done ?? this.handleTransaction?.done;
      if (end) {
        this.#pageDue = true;
        void end.then(this.#nextPage);
      }
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
    this.#schema = this.#openLog(this.inTransaction);
    this.plans.forget();
    this.#schemaChanged = true;
  }

  /**
   * Opens the change log with triggers for the schema as it is, and returns the schema read
   * again after: installing triggers changes its version, which must not count as a change.
   */
  #openLog(inTransaction: boolean): SqliteSchema {
    this.#log = sqliteDialect.openChanges(
      { connection: this.#own, schema: readSchema(this.#own) },
      { inTransaction },
    );
    return readSchema(this.#own);
  }

  #pragma(name: "data_version" | "schema_version"): number {
    return (this.#own.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name]!;
  }
}

/**
 * A Database over one SQLite connection (better-sqlite3 or node:sqlite): it tells its observer
 * which rows each statement reads, and `changed` which rows each committed write to the file
 * changed, whoever wrote it (row by row, from the change log). Opened by a driver that knows the
 * connection's library (`sqliteLibrary.ts`), it observes the app's own statements through the
 * connection as well, for the run each belongs to (`runScope.ts`).
 * `ctx.db`'s statements run at once (both libraries are synchronous) unless another command's
 * `ctx.db` transaction is open on the connection: a transaction's callback may await, and what
 * others do meanwhile must neither join it nor see its uncommitted rows, so they queue until it
 * ends. (A statement the app runs through its handle cannot wait: it runs at once, as it would
 * without livecmd.)
 */
export class SqliteDatabase implements AppDatabase {
  readonly #connection: ConnectionCore;

  constructor(
    connection: SqliteConnection | ConnectionCore,
    changed: (changes: readonly TableChange[]) => void = () => {},
    library: SqliteLibrary = UNKNOWN_LIBRARY,
    runs: RunScope = new RunScope(),
    private readonly observer?: TableObserver,
  ) {
    this.#connection =
      connection instanceof ConnectionCore
        ? connection
        : new ConnectionCore(connection, library, changed, runs);
  }

  get connection(): SqliteConnection {
    return this.#connection.handle;
  }

  /** The same connection and caches, reporting reads to another observer (one per command run). */
  observedBy(observer: TableObserver): SqliteDatabase {
    return new SqliteDatabase(this.#connection, undefined, undefined, undefined, observer);
  }

  all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return this.#observed(
      sql,
      params,
      (statement) => statement.all(...params).map(plain) as T[],
      (rows) => ({ rows, firstOnly: false }),
    );
  }

  get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return this.#observed(
      sql,
      params,
      (statement) => plain(statement.get(...params)) as T | undefined,
      (row) => ({ rows: row === undefined ? [] : [row], firstOnly: true }),
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
    const run = this.#run();
    for (
      let wait = connection.foreignTransaction(run);
      wait;
      wait = connection.foreignTransaction(run)
    )
      await wait;
    let finish!: () => void;
    const open: OpenTransaction = {
      done: new Promise<void>((resolve) => (finish = resolve)),
      savepoints: 0,
    };
    // Within a transaction this run began through the handle: a savepoint, as its library's would be.
    if (connection.inTransaction) return savepoint(connection, open, fn);
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

  /** One process holds the connection: nothing but the database itself stops it from serving. */
  servingProblem(): undefined {
    return undefined;
  }

  /** SQLite's sessions are this process's alone. */
  sharedSessions(): SessionStore | undefined {
    return this.#sharedState().sessions;
  }

  /** Its spent confirmations are kept in the file, for every process serving it. */
  spentConfirmations(): StoredSpentConfirmations | undefined {
    return this.#sharedState().spentConfirmations;
  }

  keyText(key: string): string {
    return sqliteDialect.keyText(key);
  }

  handleText(): string {
    return this.#connection.handleText();
  }

  /**
   * Other connections' writes are seen within a poll; this reads them now, and resolves once
   * every write committed before the call has been reported, a page of the log a turn. A
   * transaction open on the connection is waited for; inside one (whose writes are reported at
   * its commit, and during which the log is not read) it resolves at once.
   */
  async caughtUp(): Promise<void> {
    const connection = this.#connection;
    const run = this.#run();
    for (
      let wait = connection.foreignTransaction(run);
      wait;
      wait = connection.foreignTransaction(run)
    )
      await wait;
    if (connection.inTransaction) return;
    connection.otherWriters();
    await connection.reported();
  }

  /** Writes are read off the change log, which its triggers fill from the moment it opened. */
  async hearing(): Promise<void> {}

  async close(): Promise<void> {
    this.#connection.close();
  }

  #observed<T>(
    sql: string,
    params: readonly SqlParam[],
    execute: (statement: SqliteStatement) => T,
    returned?: (result: T) => ReturnedRows,
  ): Promise<T> {
    const run = this.#run();
    const waitFor = this.#connection.foreignTransaction(run);
    if (waitFor) return waitFor.then(() => this.#observed(sql, params, execute, returned));
    try {
      const connection = this.#connection;
      const statement = connection.prepare(sql);
      return Promise.resolve(
        connection.observed(sql, params, run, () => execute(statement), returned),
      );
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  #sharedState(): SharedState {
    return sqliteDialect.sharedState({ database: this, keepsSpent: this.#connection.keepsSpent });
  }

  /** The run a statement made here belongs to: this view's, or (`app.db` used within a command run) the caller's. */
  #run(): TableObserver | undefined {
    return this.observer ?? this.#connection.runs.observer();
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
  connection: ConnectionCore,
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
  connection: ConnectionCore,
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
function commit(connection: ConnectionCore): void {
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
