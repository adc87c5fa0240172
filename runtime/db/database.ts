import type BetterSqlite3 from "better-sqlite3";

export type SqlParam = string | number | bigint | boolean | null | Buffer;

/**
 * The database as a handler sees it. A thin layer over better-sqlite3 so that the runtime can
 * see every statement a command runs (the live machinery tracks reads and writes per table).
 */
export interface Database {
  all<T = Record<string, unknown>>(sql: string, ...params: SqlParam[]): T[];
  get<T = Record<string, unknown>>(sql: string, ...params: SqlParam[]): T | undefined;
  run(sql: string, ...params: SqlParam[]): { changes: number; lastInsertRowid: number | bigint };
  /** Runs `fn` in one transaction; it commits when `fn` returns and rolls back when it throws. */
  transaction<T>(fn: () => T): T;
}

/** Statement observer: told which SQL a run executed, so reads and writes can be attributed. */
export interface StatementObserver {
  statement(sql: string): void;
}

/** A Database over one better-sqlite3 connection, caching prepared statements by SQL text. */
export class SqliteDatabase implements Database {
  constructor(
    readonly connection: BetterSqlite3.Database,
    private readonly observer?: StatementObserver,
    private readonly statements = new Map<string, BetterSqlite3.Statement>(),
  ) {}

  /** The same connection and statement cache, reporting to another observer (one per command run). */
  observedBy(observer: StatementObserver): SqliteDatabase {
    return new SqliteDatabase(this.connection, observer, this.statements);
  }

  all<T>(sql: string, ...params: SqlParam[]): T[] {
    return this.#prepare(sql).all(...params) as T[];
  }

  get<T>(sql: string, ...params: SqlParam[]): T | undefined {
    return this.#prepare(sql).get(...params) as T | undefined;
  }

  run(sql: string, ...params: SqlParam[]) {
    const { changes, lastInsertRowid } = this.#prepare(sql).run(...params);
    return { changes, lastInsertRowid };
  }

  transaction<T>(fn: () => T): T {
    return this.connection.transaction(fn)();
  }

  #prepare(sql: string): BetterSqlite3.Statement {
    this.observer?.statement(sql);
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
