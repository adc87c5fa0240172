import { AsyncLocalStorage } from "node:async_hooks";
import { ANY_TABLE } from "../anyTable.ts";
import type { AppDatabase, RunResult, SqlParam, TableObserver } from "../database.ts";
import { cancellableQuery, whileCancellable } from "./cancellableQuery.ts";
import { throwIfCancelled } from "../runCancelled.ts";
import { readsNoTable } from "./plan/readsNoTable.ts";
import type { RunScope } from "../runScope.ts";
import type {
  PgClient,
  PgHandleStatements,
  PgPool,
  PgQueryConfig,
  PgQueryResult,
  PgTypeParsers,
  SentStatement,
} from "./pgLibrary.ts";
import { numberedPlaceholders } from "./placeholders.ts";
import type { ExplainOptions, PlannedAccess } from "./plan/planTables.ts";
import type { PlannedRead } from "./plan/planReads.ts";
import type * as LoadedOnOpenModule from "./loadedOnOpen.ts";
import type { PostgresDialect } from "./postgresDialect.ts";
import type { ChangeInterest } from "../changeInterest.ts";
import type { SessionStore, SharedState, StoredSpentConfirmations } from "../sharedState.ts";

/** What the views of one database share beyond its connections. */
export interface DatabaseLifecycle {
  /** Settles when the database takes statements (connected, set up, change feed listened to). */
  readonly ready: Promise<void>;
  caughtUp(): Promise<void>;
  close(): Promise<void>;
  /** Why changes do not reach this process now (the LISTEN connection down, the bus), if so. */
  notHeard(): string | undefined;
  /** Hears a channel on the change feed's connection (`ChangeListener.hear`). */
  hear(channel: string, heard: (payload: string | undefined) => void): Promise<() => void>;
  /** How changes are captured (`captureLine`), once installed. */
  captureText(): string | undefined;
  /** What routes changes to this process by what it watches: the bus, when it has one. */
  changeInterest?(): ChangeInterest | undefined;
}

/** Where a statement is explained: on the connection it goes to (in a transaction or not), or on one of livecmd's. */
interface ExplainedOn {
  readonly client: PgClient;
  readonly inTransaction: boolean;
}

/** A transaction's connection, which every statement made from within its callback uses. */
interface OpenTransaction {
  readonly client: PgClient;
  savepoints: number;
}

/** What a database loads as it opens. */
type LoadedOnOpen = typeof LoadedOnOpenModule;

/** What a statement that reads no table (`readsNoTable.ts`) is planned as. */
const NO_READS: Promise<readonly PlannedRead[]> = Promise.resolve([]);

/** What every view of one pool shares. */
export class PostgresConnection {
  /** Loading from the moment the database opens; what needs it first awaits it. */
  readonly loaded: Promise<LoadedOnOpen> = import("./loadedOnOpen.ts");
  readonly scope = new AsyncLocalStorage<OpenTransaction>();
  readonly #texts = new Map<string, string>();
  readonly #reads = new Map<string, Promise<readonly PlannedRead[]>>();
  /** The plans of `#reads` that have been read, for a statement to be told of without a wait. */
  readonly #planned = new Map<string, readonly PlannedRead[]>();
  /** `loaded`, once it has: set by the constructor. */
  #loadedNow: LoadedOnOpen | undefined;
  /** Lines logged already: each is said once per process, though plans are read again after DDL. */
  readonly #said = new Set<string>();

  /** Set once connected: the first statement of every view awaits that. */
  pool!: PgPool;
  /** What the app gave `postgres()`, as `AppDatabase.handleText` says it; set as it opens. */
  handleText = "the database postgres() was given";

  constructor(
    /** What the database's engine is asked through: plans, the change capture, its shared state. */
    readonly dialect: PostgresDialect,
    readonly types: PgTypeParsers,
    private readonly log: (line: string) => void,
    private readonly explaining: ExplainOptions = {},
    /** `LIVECMD_CHECK_READS=1`: every statement's read set is checked against what it scanned. */
    readonly checkingReads = false,
    /** The app's command runs, which the statements it sends through its own pool report to. */
    private readonly runs?: RunScope,
  ) {
    this.loaded.then((loaded) => (this.#loadedNow = loaded)).catch(() => {});
  }

  /**
   * Runs `config` (planned as `reads`) in a transaction of its own, or the app's, and logs what
   * PostgreSQL says it scanned or called that `reads` does not account for: a write there
   * would not re-run the subscriptions that ran it.
   */
  async checked(
    config: PgQueryConfig,
    reads: readonly PlannedRead[],
    transaction: PgClient | undefined,
  ): Promise<PgQueryResult> {
    const { activityOf, unaccounted } = await this.loaded;
    const client = transaction ?? (await this.pool.connect());
    try {
      if (!transaction) await client.query({ text: "BEGIN" });
      const before = await activityOf(client);
      const result = await client.query(config);
      const missed = unaccounted(
        before,
        await activityOf(client),
        new Set(reads.map(({ table }) => table)),
        this.explaining.pureFunctions,
      );
      if (!transaction) await client.query({ text: "COMMIT" });
      const hint = this.explaining.pureFunctions?.size
        ? "if it calls a function named in pureFunctions that reads tables, take that name out; otherwise please report it"
        : "please report it";
      if (missed.length > 0)
        this.#sayOnce(
          `livecmd: LIVECMD_CHECK_READS: ${JSON.stringify(config.text)} ${missed.join(", ")}, which its read set lacks: a write there would not re-run its subscriptions (${hint})`,
        );
      return result;
    } catch (error) {
      if (!transaction) await client.query({ text: "ROLLBACK" }).catch(() => {});
      throw error;
    } finally {
      if (!transaction) client.release();
    }
  }

  /** Plans are read again from now on: DDL may have changed what a statement reads. */
  forgetPlans(): void {
    this.#reads.clear();
    this.#planned.clear();
  }

  text(sql: string): string {
    let text = this.#texts.get(sql);
    if (text === undefined) this.#texts.set(sql, (text = numberedPlaceholders(sql)));
    return text;
  }

  /**
   * The rows `text` reads, as planned, explained once per statement text. Inside a transaction, on the
   * transaction's connection: it holds one already, and waiting for a second could wait forever
   * once every pooled connection is held by a transaction doing the same.
   */
  reads(text: string, on: ExplainedOn | undefined): Promise<readonly PlannedRead[]> {
    const known = this.#reads.get(text);
    if (known) return known;
    const planning = readsNoTable(text) ? NO_READS : this.#explain(text, on);
    this.#reads.set(text, planning);
    // Unless DDL made the plan be read again meanwhile.
    void planning.then((planned) => {
      if (this.#reads.get(text) === planning) this.#planned.set(text, planned);
    });
    return planning;
  }

  /**
   * What the app's own statements through its pool or client go through (`observedPool.ts`):
   * each is reported to the run it belongs to before it is sent, as `ctx.db`'s are, explained on
   * the connection it goes to (it holds that one already; waiting for another could wait forever
   * once every pooled connection is held so), and cancelled with the run.
   */
  readonly handleStatements: PgHandleStatements = {
    statement: async (sent, send) => {
      const observer = this.runs?.observer();
      throwIfCancelled(observer?.signal);
      // A failed transaction runs nothing but its end: the statement will fail, reading nothing.
      if (observer?.read && sent.status !== "failed transaction") await this.#tell(observer, sent);
      const signal = observer?.signal;
      return signal ? whileCancellable(this.pool, sent.client.processID, signal, send) : send();
    },
    toldAtOnce: (sent) => {
      const observer = this.runs?.observer();
      if (observer?.signal) return false;
      if (!observer?.read || sent.status === "failed transaction") return true;
      const planned = this.#planned.get(sent.text);
      return !!planned && !!this.#loadedNow?.tellReadsAtOnce(observer, planned, sent.values);
    },
    streamed: (text) => {
      const observer = this.runs?.observer();
      throwIfCancelled(observer?.signal);
      // It starts at once, before an explain could answer: every table, rather than a read missed.
      observer?.read?.([
        {
          table: ANY_TABLE,
          because: `${JSON.stringify(text)} is streamed, which livecmd does not explain`,
        },
      ]);
    },
  };

  /** Tells `observer` what `sent` reads, once its plan and the values it looks up are in. */
  async #tell(observer: TableObserver, { text, values, client, status }: SentStatement) {
    const on = status && { client, inTransaction: status === "in transaction" };
    const [loaded, reads] = await Promise.all([this.loaded, this.reads(text, on)]);
    await loaded.tellReads(observer, reads, values, (own) => client.query(own));
  }

  /** Logged once per statement text (per plan read): what watching it cannot rely on. */
  async #explain(text: string, on: ExplainedOn | undefined): Promise<readonly PlannedRead[]> {
    let reason: string;
    try {
      const access = !on
        ? await this.#explainOnOwnConnection(text)
        : await this.dialect.planReads(on.client, text, this.explaining, on.inTransaction);
      if ("reads" in access) {
        for (const read of access.reads)
          if (read.column === undefined && read.filter === undefined && read.because)
            this.#sayOnce(`livecmd: ${JSON.stringify(text)} reads ${read.table}, ${read.because}`);
        return access.reads;
      }
      reason = access.unknown;
    } catch (error) {
      reason = `EXPLAIN failed: ${(error as Error).message}`;
    }
    this.#sayOnce(
      `livecmd: cannot tell which tables ${JSON.stringify(text)} reads (${reason}); subscriptions that run it re-run on any write`,
    );
    return [{ table: ANY_TABLE, because: reason }];
  }

  #sayOnce(line: string): void {
    if (this.#said.has(line)) return;
    this.#said.add(line);
    this.log(line);
  }

  async #explainOnOwnConnection(text: string): Promise<PlannedAccess> {
    const client = await this.pool.connect();
    try {
      return await this.dialect.planReads(client, text, this.explaining, false);
    } finally {
      client.release();
    }
  }
}

/**
 * A Database over a node-postgres pool. Statements outside a transaction take any pooled
 * connection; a transaction holds one for its callback. Reads are reported from the statement's
 * plan; writes are not reported here at all: every write, this process's included, comes back
 * through the change feed (NOTIFY at commit), which also sees triggers and cascades.
 */
export class PostgresDatabase implements AppDatabase {
  readonly #ready: Promise<void>;

  constructor(
    private readonly shared: PostgresConnection,
    private readonly lifecycle: DatabaseLifecycle,
    private readonly observer?: TableObserver,
  ) {
    this.#ready = lifecycle.ready;
  }

  /** The pool, once the database is ready. */
  async pool(): Promise<PgPool> {
    await this.#ready;
    return this.shared.pool;
  }

  /**
   * Hears NOTIFY `channel` on the change feed's connection, once the database is ready:
   * `heard(undefined)` after a reconnect, when what was sent meanwhile is lost.
   */
  async hear(channel: string, heard: (payload: string | undefined) => void): Promise<() => void> {
    await this.#ready;
    return this.lifecycle.hear(channel, heard);
  }

  /** While the change feed is not heard, a write from elsewhere would not reach the subscriptions. */
  servingProblem(): string | undefined {
    return this.lifecycle.notHeard();
  }

  /** Every process serving this database shares its 2025-era sessions. */
  sharedSessions(): SessionStore | undefined {
    return this.#sharedState().sessions;
  }

  /** Every process serving this database spends a confirmation once between them. */
  spentConfirmations(): StoredSpentConfirmations | undefined {
    return this.#sharedState().spentConfirmations;
  }

  keyText(key: string): string {
    return this.shared.dialect.keyText(key);
  }

  #sharedState(): SharedState {
    return this.shared.dialect.sharedState(this);
  }

  captureText(): string | undefined {
    return this.lifecycle.captureText();
  }

  changeInterest(): ChangeInterest | undefined {
    return this.lifecycle.changeInterest?.();
  }

  handleText(): string {
    return this.shared.handleText;
  }

  observedBy(observer: TableObserver): PostgresDatabase {
    return new PostgresDatabase(this.shared, this.lifecycle, observer);
  }

  async all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return (await this.#query(sql, params)).rows as T[];
  }

  async get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return (await this.#query(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, ...params: SqlParam[]): Promise<RunResult> {
    return { changes: (await this.#query(sql, params)).rowCount ?? 0 };
  }

  async transaction<T>(fn: () => Promise<T> | T): Promise<T> {
    await this.#ready;
    const current = this.shared.scope.getStore();
    if (current) return savepoint(current, fn);
    const client = await this.shared.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query({ text: "BEGIN" });
      const open: OpenTransaction = { client, savepoints: 0 };
      let result: T;
      try {
        result = await this.shared.scope.run(open, fn);
      } catch (error) {
        await client.query({ text: "ROLLBACK" }).catch((failure: Error) => (broken = failure));
        throw error;
      }
      await client.query({ text: "COMMIT" });
      return result;
    } finally {
      client.release(broken);
    }
  }

  caughtUp(): Promise<void> {
    return this.lifecycle.caughtUp();
  }

  hearing(): Promise<void> {
    return this.#ready;
  }

  close(): Promise<void> {
    return this.lifecycle.close();
  }

  /**
   * Reads are reported before the statement is sent: a write committed after the statement's
   * snapshot is heard after that, so the run in progress is matched against it; reported after
   * the statement, a change heard in between would miss the run. Reads by values looked up off
   * other rows are reported once those are read, after the reads of the rows that supply them.
   * A page's read is narrowed once the statement returned (`pageReads.ts`): a change heard until
   * then was matched against its filter, and one heard after is past the snapshot, where the
   * bound holds.
   */
  async #query(sql: string, params: SqlParam[]): Promise<PgQueryResult> {
    await this.#ready;
    const text = this.shared.text(sql);
    const transaction = this.shared.scope.getStore()?.client;
    const config = { text, values: params, types: this.shared.types };
    const signal = this.observer?.signal;
    const observer = this.observer;
    if (!observer?.read && !this.shared.checkingReads)
      return cancellableQuery(this.shared.pool, transaction, config, signal);
    const reads = await this.shared.reads(
      text,
      transaction && { client: transaction, inTransaction: true },
    );
    const { reportReads, pageReads } = await this.shared.loaded;
    const pages = observer?.read
      ? await reportReads(
          observer,
          reads,
          params,
          (own) => (transaction ?? this.shared.pool).query(own),
          observer.narrowed !== undefined,
        )
      : [];
    const result = this.shared.checkingReads
      ? await this.shared.checked(config, reads, transaction)
      : await cancellableQuery(this.shared.pool, transaction, config, signal);
    if (pages.length > 0) {
      const { told, reads: narrowed } = pageReads(pages, params, result);
      if (told.length > 0) observer!.narrowed!(told, narrowed);
    }
    return result;
  }
}

/** A transaction within a transaction: a savepoint. */
async function savepoint<T>(open: OpenTransaction, fn: () => Promise<T> | T): Promise<T> {
  const name = `livecmd_${(open.savepoints += 1)}`;
  await open.client.query({ text: `SAVEPOINT ${name}` });
  try {
    const result = await fn();
    await open.client.query({ text: `RELEASE SAVEPOINT ${name}` });
    return result;
  } catch (error) {
    await open.client.query({ text: `ROLLBACK TO SAVEPOINT ${name}` });
    throw error;
  }
}
