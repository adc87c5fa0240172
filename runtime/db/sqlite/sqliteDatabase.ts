import { AsyncLocalStorage } from "node:async_hooks";
import type { AppDatabase, RunResult, SqlParam, TableObserver } from "../database.ts";
import { anyRowsOf, wholeTable, type TableChange } from "../keyedAccess.ts";
import type { SqliteConnection, SqliteStatement } from "./sqliteConnection.ts";
import { StatementTables } from "./statementTables.ts";

/** The transaction open on a connection: who may use the connection until `done`. */
interface OpenTransaction {
  readonly done: Promise<void>;
  savepoints: number;
  /** Writes reported at commit, not before: a rolled-back write changed nothing. */
  readonly written: [TableObserver, readonly TableChange[]][];
}

/** What every view of one connection shares: the connection, its statements, their tables. */
class Connection {
  readonly statements = new Map<string, SqliteStatement>();
  readonly tables: StatementTables;
  /** Statements made from within a transaction's callback carry it (awaited or not). */
  readonly scope = new AsyncLocalStorage<OpenTransaction>();
  open: OpenTransaction | undefined;

  constructor(readonly handle: SqliteConnection) {
    this.tables = new StatementTables(handle);
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
}

/**
 * A Database over one better-sqlite3 connection, reporting table access to its observer.
 * Statements run at once (better-sqlite3 is synchronous) unless another command's transaction
 * is open on the connection: a transaction's callback may await, and what others do meanwhile
 * must neither join it nor see its uncommitted rows, so they queue until it ends.
 */
export class SqliteDatabase implements AppDatabase {
  readonly #connection: Connection;

  constructor(
    connection: SqliteConnection | Connection,
    private readonly observer?: TableObserver,
  ) {
    this.#connection = connection instanceof Connection ? connection : new Connection(connection);
  }

  get connection(): SqliteConnection {
    return this.#connection.handle;
  }

  /** The same connection and caches, reporting to another observer (one per command run). */
  observedBy(observer: TableObserver): SqliteDatabase {
    return new SqliteDatabase(this.#connection, observer);
  }

  all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return this.#observed(sql, (statement) => statement.all(...params) as T[]);
  }

  get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return this.#observed(sql, (statement) => statement.get(...params) as T | undefined);
  }

  run(sql: string, ...params: SqlParam[]): Promise<RunResult> {
    return this.#observed(sql, (statement) => {
      const { changes, lastInsertRowid } = statement.run(...params);
      return { changes, lastInsertRowid };
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
      written: [],
    };
    connection.open = open;
    try {
      connection.exec("BEGIN");
      const result = await settle(connection, () => connection.scope.run(open, fn), "ROLLBACK");
      commit(connection);
      for (const [observer, tables] of open.written) observer.wrote(tables);
      return result;
    } finally {
      connection.open = undefined;
      finish();
    }
  }

  async caughtUp(): Promise<void> {}

  async close(): Promise<void> {
    (this.#connection.handle as { close?: () => void }).close?.();
  }

  #observed<T>(sql: string, execute: (statement: SqliteStatement) => T): Promise<T> {
    const waitFor = this.#connection.foreignTransaction();
    if (waitFor) return waitFor.done.then(() => this.#observed(sql, execute));
    try {
      return Promise.resolve(this.#now(sql, execute));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Reads are reported before the statement runs, writes only once it ran (`INSERT ... RETURNING` included). */
  #now<T>(sql: string, execute: (statement: SqliteStatement) => T): T {
    const statement = this.#connection.prepare(sql);
    const access = this.observer && this.#connection.tables.of(sql);
    if (access) this.observer!.read?.(access.reads.map(wholeTable));
    const result = execute(statement);
    if (access && access.writes.length > 0) {
      const open = this.#connection.open;
      const changes = access.writes.map(anyRowsOf);
      if (open) open.written.push([this.observer!, changes]);
      else this.observer!.wrote(changes);
    }
    return result;
  }
}

/** A transaction within a transaction: a savepoint, whose writes are dropped if it rolls back. */
async function savepoint<T>(
  connection: Connection,
  open: OpenTransaction,
  fn: () => Promise<T> | T,
): Promise<T> {
  const name = `livecmd_${(open.savepoints += 1)}`;
  const reported = open.written.length;
  connection.exec(`SAVEPOINT ${name}`);
  try {
    const result = await settle(connection, fn, `ROLLBACK TO ${name}`);
    connection.exec(`RELEASE ${name}`);
    return result;
  } catch (error) {
    open.written.length = reported;
    throw error;
  }
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
