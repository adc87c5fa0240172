/**
 * What livecmd uses of node-postgres (`pg` v8): a `pg.Pool` the app hands over, or one livecmd
 * makes from a URL. Written out rather than imported, so that livecmd's published types need no
 * pg types in an app that never uses PostgreSQL.
 */
export interface PgQueryConfig {
  text: string;
  values?: unknown[];
  types?: PgTypeParsers;
}

export interface PgQueryResult {
  rows: unknown[];
  rowCount: number | null;
  /** The columns of the rows, in order (absent from results livecmd does not read them from). */
  fields?: readonly { readonly name: string }[];
}

export interface PgTypeParsers {
  getTypeParser(oid: number, format?: string): (value: string) => unknown;
}

export interface PgNotification {
  channel: string;
  payload?: string | undefined;
  processId: number;
}

/** Where a pool or client connects, as node-postgres keeps it (`pool.options`, `client.connectionParameters`). */
export interface PgConnectionOptions {
  readonly connectionString?: string;
  readonly host?: string;
  readonly port?: number | string;
  readonly database?: string;
}

export interface PgClient {
  query(config: PgQueryConfig): Promise<PgQueryResult>;
  readonly connectionParameters?: PgConnectionOptions;
  /** The backend's process id (`pg_cancel_backend` takes it). */
  readonly processID?: number | null;
  release(destroy?: boolean | Error): void;
  on(event: "notification", listener: (message: PgNotification) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
}

/** What takes statements: a pool, or one of its connections. */
export type PgQueryable = Pick<PgClient, "query">;

export interface PgPool {
  readonly options?: PgConnectionOptions;
  connect(): Promise<PgClient>;
  query(config: PgQueryConfig): Promise<PgQueryResult>;
  end(): Promise<void>;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** The parts of the `pg` module livecmd loads itself (it is an optional peer dependency). */
export interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
  types: PgTypeParsers;
}

/** Where a connection stands, as PostgreSQL said after its last statement (`ReadyForQuery`). */
export type TransactionStatus = "idle" | "in transaction" | "failed transaction";

/** A statement the app sends, as livecmd reads it: its text, values, and the connection it goes to. */
export interface SentStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  /** The connection it goes to, as livecmd sends on it itself (to explain the statement first). */
  readonly client: PgClient;
  /** Undefined when the connection does not say (a client that is not node-postgres's own). */
  readonly status: TransactionStatus | undefined;
}

/** What the PostgreSQL engine does with each statement the app sends through its own handle. */
export interface PgHandleStatements {
  /**
   * Tells the run it belongs to what `sent` reads and says so, when that needs no wait (its plan
   * known, no value to look up off other rows, no cancellation to watch): then it goes to pg as
   * the app sent it, with nothing in between. Else false, and `statement` does it all.
   */
  toldAtOnce(sent: SentStatement): boolean;
  /** Sends it (`send`) for the run it belongs to, its reads reported first, cancelled with the run. */
  statement(sent: SentStatement, send: () => Promise<PgQueryResult>): Promise<PgQueryResult>;
  /** A statement streamed (pg-cursor, pg-query-stream), which goes at once: its reads reported as well as can be. */
  streamed(text: string, values: readonly unknown[]): void;
}
