import { SetupError } from "../setupError.ts";
import type { Database } from "../database.ts";
import type { DatabaseOwner } from "../driver.ts";
import type { RunScope } from "../runScope.ts";
import { handleWhere, redacted, urlProblem } from "../postgres/connectionProblem.ts";
import { checkedCaptureChoice, type CaptureChoice } from "../postgres/changes/captureMode.ts";
import { openPostgres, type FoundPool } from "../postgres/openPostgres.ts";
import { loadPg } from "./loadPg.ts";
import {
  connectionConfigOf,
  isClient,
  isPool,
  observeClient,
  observePool,
} from "./observedPool.ts";
import type { PgClient, PgModule, PgPool } from "../postgres/pgLibrary.ts";
import { PostgresConnection, type PostgresDatabase } from "../postgres/postgresDatabase.ts";
import { postgresDialect } from "../postgres/postgresDialect.ts";
import { typeParsers } from "./typeParsers.ts";

/**
 * A URL, the app's own `pg.Pool` or connected `pg.Client`, or a function that finds one when the
 * database is first used. The statements the app sends through its pool or client (with Drizzle,
 * Kysely, Prisma's adapter or its own SQL) are observed from then on, as `ctx.db`'s are.
 */
export type PostgresTarget =
  string | PgPool | PgClient | (() => Promise<string | PgPool | PgClient>);

export interface PostgresOptions {
  /**
   * Runs once, when the app first opens the database and before livecmd installs its change
   * feed: create and seed the app's schema here. Several processes may start at once, so take
   * a lock (`SELECT pg_advisory_xact_lock(...)` in a transaction) before looking.
   */
  setUp?: (db: Database) => Promise<void>;
  /** Where livecmd's lines about the database go (reconnects, untracked reads); stderr when absent. */
  log?: (line: string) => void;
  /**
   * Functions of the app's (outside `pg_catalog`) that read no table, by `name` or
   * `schema.name`. A statement that calls any other function counts as reading every table,
   * unless it is a SQL function of one statement, whose body livecmd plans.
   */
  pureFunctions?: readonly string[];
  /**
   * Checks every statement's read set against what PostgreSQL says it scanned and called
   * (`pg_stat_xact_user_tables`, and `pg_stat_xact_user_functions` under `track_functions`), and
   * logs what it lacks: for staging, against the app's own schema; each statement then runs in
   * a transaction of its own. `LIVECMD_CHECK_READS=1` turns it on when this is absent.
   */
  checkReads?: boolean;
  /**
   * How changes are captured: `"auto"` (the default) decodes them from the WAL when the
   * database allows it (`wal_level = logical` and a role that may replicate), else installs
   * triggers; `"logical"` fails to open without it; `"triggers"` always uses triggers.
   */
  capture?: CaptureChoice;
  /**
   * A NATS server with JetStream (`nats://host:4222`) that carries each change only to the
   * processes watching one of its rows (or reading its table whole), instead of every process
   * hearing every change: for many processes. Needs the `logical` capture mode and
   * `@nats-io/transport-node` and `@nats-io/jetstream`; give every process of the database the
   * same. `LIVECMD_BUS` when this is absent.
   */
  bus?: string;
}

/** A PostgreSQL database for `defineApp({ database })`, opened on first use. */
export interface PostgresSource {
  readonly kind: "postgres";
  /**
   * Opens it: `changed` is told every change the change feed reports, and the statements the app
   * sends through its own pool or client report to its command runs in `runs`.
   */
  open(changed: DatabaseOwner["changed"], runs?: RunScope): PostgresDatabase;
}

/**
 * The app's database on PostgreSQL, by URL (livecmd makes a `pg.Pool` and ends it on close), as
 * a `pg.Pool` the app made, or as a function that resolves to either on first use. When first
 * opened, livecmd installs its change feed (what `livecmd db install` does) and LISTENs to it,
 * so writes from any process are seen.
 */
export function postgres(target: PostgresTarget, options: PostgresOptions = {}): PostgresSource {
  if (!target) throw new SetupError(NO_DATABASE);
  if (typeof target === "string") checkUrl(target);
  checkPureFunctions(options.pureFunctions);
  const bus = checkedBus(options.bus ?? (process.env.LIVECMD_BUS || undefined), options.capture);
  const capture =
    bus && options.capture === undefined ? "logical" : checkedCaptureChoice(options.capture);
  const checkReads = options.checkReads ?? process.env.LIVECMD_CHECK_READS === "1";
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    kind: "postgres",
    open(changed, runs) {
      const pg = loadPg();
      const pureFunctions = new Set(options.pureFunctions);
      const shared = new PostgresConnection(
        postgresDialect,
        typeParsers(pg.types),
        log,
        { pureFunctions },
        checkReads,
        runs,
      );
      const found = async () => {
        const handle = typeof target === "function" ? await target() : target;
        if (!handle) throw new SetupError(NO_DATABASE);
        if (typeof handle === "string") checkUrl(handle);
        return foundPool(pg, handle, shared, log);
      };
      return openPostgres(
        shared,
        found,
        { setUp: options.setUp, log, pureFunctions, capture, bus },
        changed,
      );
    },
  };
}

const NO_DATABASE =
  "livecmd: postgres() was given no database: pass a postgres:// URL (is DATABASE_URL set?), a pg.Pool, a connected pg.Client, or a function that returns one";

function checkPureFunctions(names: unknown): void {
  if (names === undefined) return;
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && name !== ""))
    throw new SetupError(
      `livecmd: postgres(url, { pureFunctions }) must be a list of function names ("name" or "schema.name"), not ${JSON.stringify(names)}`,
    );
}

/** The bus's URL, checked: a `nats://` or `tls://` URL, on the `logical` capture mode. */
function checkedBus(bus: unknown, capture: unknown): string | undefined {
  if (bus === undefined) return undefined;
  const protocol = typeof bus === "string" && URL.canParse(bus) ? new URL(bus).protocol : undefined;
  if (typeof bus !== "string" || (protocol !== "nats:" && protocol !== "tls:"))
    throw new SetupError(
      `livecmd: postgres(url, { bus }) (or LIVECMD_BUS) must be a NATS server's URL such as nats://127.0.0.1:4222, not ${JSON.stringify(bus)}`,
    );
  if (capture === "triggers")
    throw new SetupError(
      'livecmd: postgres(url, { bus }) needs the logical capture mode (the relay publishes on the bus), not capture: "triggers"; leave capture out',
    );
  return bus;
}

function checkUrl(url: string): void {
  const problem = urlProblem(url);
  if (problem) throw new SetupError(problem);
}

/** The pool livecmd's statements go through for `handle`, and how messages name it. */
function foundPool(
  pg: PgModule,
  handle: string | PgPool | PgClient,
  shared: PostgresConnection,
  log: (line: string) => void,
): FoundPool {
  const where =
    typeof handle === "string"
      ? redacted(handle)
      : isPool(handle)
        ? handleWhere("pg.Pool", handle.options)
        : handleWhere("pg.Client", handle.connectionParameters);
  const pool = livecmdPool(pg, handle, shared, log);
  return {
    pool,
    held: isPool(handle)
      ? ownPool(pg, { ...connectionOf(handle), max: HELD_CONNECTIONS }, log)
      : pool,
    where,
    handleText: typeof handle === "string" ? `the pool livecmd made for ${where}` : where,
    ownsPool: typeof handle === "string" || isClient(handle),
    openWalStream: async (slot, publication) =>
      (await import("./walStream.ts")).walStreamOf(connectionOf(handle))(slot, publication),
  };
}

/**
 * The settings of a connection to where `handle` connects (the relay's replication connection
 * is made with them): the pool livecmd observes is not the app's object, and knows none.
 */
function connectionOf(handle: string | PgPool | PgClient): Record<string, unknown> {
  if (typeof handle === "string") return { connectionString: handle };
  return isPool(handle) ? { ...handle.options } : connectionConfigOf(handle);
}

/**
 * The pool livecmd sends its own statements through (and `ctx.db`'s): one of its own for a URL or
 * the app's client (made with the client's settings), or the app's pool; the app's own pool or
 * client observed from now on.
 */
function livecmdPool(
  pg: PgModule,
  found: string | PgPool | PgClient,
  shared: PostgresConnection,
  log: (line: string) => void,
): PgPool {
  if (typeof found === "string") return ownPool(pg, { connectionString: found }, log);
  if (isPool(found)) return observePool(found, shared.handleStatements);
  if (!isClient(found)) throw new SetupError(NO_DATABASE);
  observeClient(found, shared.handleStatements);
  return ownPool(pg, connectionConfigOf(found), log);
}

/** The change feed's LISTEN and the relay's lock, and one more for a statement beside them. */
const HELD_CONNECTIONS = 3;

function ownPool(
  pg: PgModule,
  connection: Record<string, unknown>,
  log: (line: string) => void,
): PgPool {
  const pool = new pg.Pool({
    ...connection,
    allowExitOnIdle: true,
    application_name: "livecmd",
  });
  // An idle connection that breaks is replaced on next use; unheard, its error would crash.
  pool.on?.("error", (error) =>
    log(`livecmd: an idle PostgreSQL connection failed: ${error.message}`),
  );
  return pool;
}
