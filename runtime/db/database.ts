import type { SqliteConnection, SqliteStatement } from "./sqliteConnection.ts";
import { StatementTables } from "./statementTables.ts";

export type SqlParam = string | number | bigint | boolean | null | Buffer;

/**
 * The database as a handler sees it. A thin layer over better-sqlite3 so that the runtime sees
 * which tables every statement reads and writes: live subscriptions re-run on those.
 */
export interface Database {
  all<T = Record<string, unknown>>(sql: string, ...params: SqlParam[]): T[];
  get<T = Record<string, unknown>>(sql: string, ...params: SqlParam[]): T | undefined;
  run(sql: string, ...params: SqlParam[]): { changes: number; lastInsertRowid: number | bigint };
  /** Runs `fn` in one transaction; it commits when `fn` returns and rolls back when it throws. */
  transaction<T>(fn: () => T): T;
}

/** Told which tables each statement read, and which it wrote once it ran. */
export interface TableObserver {
  read(tables: readonly string[]): void;
  wrote(tables: readonly string[]): void;
}

/** What every view of one connection shares: the connection, its statements, their tables. */
class Connection {
  readonly statements = new Map<string, SqliteStatement>();
  readonly tables: StatementTables;

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
}

/** A Database over one better-sqlite3 connection, reporting table access to its observer. */
export class SqliteDatabase implements Database {
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

  all<T>(sql: string, ...params: SqlParam[]): T[] {
    return this.#observed(sql, (statement) => statement.all(...params) as T[]);
  }

  get<T>(sql: string, ...params: SqlParam[]): T | undefined {
    return this.#observed(sql, (statement) => statement.get(...params) as T | undefined);
  }

  run(sql: string, ...params: SqlParam[]) {
    const { changes, lastInsertRowid } = this.#observed(sql, (statement) =>
      statement.run(...params),
    );
    return { changes, lastInsertRowid };
  }

  transaction<T>(fn: () => T): T {
    return this.#connection.handle.transaction(fn)();
  }

  /** Reads are reported before the statement runs, writes only once it ran (`INSERT ... RETURNING` included). */
  #observed<T>(sql: string, execute: (statement: SqliteStatement) => T): T {
    const statement = this.#connection.prepare(sql);
    const access = this.observer && this.#connection.tables.of(sql);
    if (access) this.observer!.read(access.reads);
    const result = execute(statement);
    if (access && access.writes.length > 0) this.observer!.wrote(access.writes);
    return result;
  }
}
