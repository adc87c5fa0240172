import { ANY_TABLE } from "../anyTable.ts";
import type { Database } from "../database.ts";
import type { DatabaseOwner } from "../driver.ts";
import type { TableChange } from "../keyedAccess.ts";
import type { Capture, CaptureChoice } from "./changes/captureMode.ts";
import type { ChangeListener } from "./changes/changeListener.ts";
import type { LogicalRelay } from "./changes/logicalRelay.ts";
import type { BusConnection } from "./bus/busConnection.ts";
import type { BusListener } from "./bus/busListener.ts";
import type * as LoadedOnOpen from "./loadedOnOpen.ts";
import type { OpenWalStream } from "./changes/walMessage.ts";
import { firstConnection } from "./firstConnection.ts";
import type { PgPool } from "./pgLibrary.ts";
import { PostgresDatabase, type PostgresConnection } from "./postgresDatabase.ts";

/** What a failed setUp is told: processes that start together each run it. */
const SET_UP_AT_ONCE =
  "processes that start together each run setUp, so make it safe to run at once (in a transaction, SELECT pg_advisory_xact_lock(...) before looking)";

/** The pool a driver found for livecmd's own statements, and how messages name it. */
export interface FoundPool {
  readonly pool: PgPool;
  /**
   * Where livecmd's long-held connections come from (the change feed's LISTEN, the relay's lock),
   * each held for as long as the app runs: `pool` when livecmd made it, else a pool of livecmd's
   * own with the app's settings. Taken from the app's pool they would leave its runs fewer
   * connections than it was sized for, and none of a pool of one or two: every run would wait.
   */
  readonly held: PgPool;
  /** The database as a message about its first connection names it (a redacted URL, the app's pool). */
  readonly where: string;
  /** What the app gave `postgres()` (`AppDatabase.handleText`). */
  readonly handleText: string;
  /** Whether closing the database ends the pool: livecmd made it. */
  readonly ownsPool: boolean;
  /** Opens the WAL stream of a slot on the same database (the `logical` capture mode's relay). */
  readonly openWalStream: OpenWalStream;
}

/** What opening asks of the app: its `postgres()` options, as the dialect needs them. */
export interface OpenOptions {
  setUp?: (db: Database) => Promise<void>;
  log: (line: string) => void;
  pureFunctions: ReadonlySet<string>;
  capture: CaptureChoice;
  /** The bus's URL (`postgres({ bus })`), when changes go by it. */
  bus?: string;
}

/**
 * Opens a PostgreSQL database on the pool a driver finds (`found`, once it has): the first
 * connection checked, the dialect's change capture opened, the app's setUp run, the change feed
 * installed, then listened to. `changed` hears every change; one to every table also drops the
 * plans, since DDL and a lost feed are reported so. The database answers at once, and each
 * statement waits for the opening (and fails with its error).
 */
export function openPostgres(
  shared: PostgresConnection,
  found: () => Promise<FoundPool>,
  options: OpenOptions,
  changed: DatabaseOwner["changed"],
): PostgresDatabase {
  const heard = (changes: readonly TableChange[]) => {
    if (changes.some(({ table }) => table === ANY_TABLE)) shared.forgetPlans();
    changed(changes);
  };
  // Filled in as the start goes, for `notHeard()` and `close()`, which must not wait for a
  // start that may never come; what hears through it awaits `started`.
  const opened: Opened = { ownsPool: false };
  const started = start(shared, found, options, heard, opened);
  const ready = started.then(() => {});
  // Every statement awaits `ready` and fails with its error; unawaited, it is no crash.
  ready.catch(() => {});
  const startedOrNot = () => started.catch(() => undefined);
  return new PostgresDatabase(shared, {
    ready,
    async caughtUp() {
      await (await startedOrNot())?.caughtUp();
    },
    hear: async (channel, hears) => {
      await started;
      return opened.listener!.hear(channel, hears);
    },
    notHeard: () => (opened.listener?.listening ? opened.busListener?.problem : FEED_NOT_HEARD),
    captureText: () => opened.captured,
    changeInterest: () => opened.busListener,
    async close() {
      await startedOrNot();
      await opened.relay?.close();
      await opened.busListener?.close();
      await opened.bus?.nats.close();
      await opened.listener?.close();
      if (opened.held && opened.held !== shared.pool) await opened.held.end();
      if (opened.ownsPool) await shared.pool.end();
    },
  });
}

const FEED_NOT_HEARD = "the PostgreSQL change feed is not listened to (reconnecting)";

/** What an opening has started, as it goes. */
interface Opened {
  listener?: ChangeListener;
  relay?: LogicalRelay;
  bus?: BusConnection;
  busListener?: BusListener;
  captured?: string;
  ownsPool: boolean;
  /** `FoundPool.held`, once found. */
  held?: PgPool;
}

/**
 * The opening: the pool found and its first connection checked, the bus connected (when the
 * app has one), the change feed installed and listened to, the relay started in the `logical`
 * mode. Resolves with what tells when changes have caught up.
 */
async function start(
  shared: PostgresConnection,
  found: () => Promise<FoundPool>,
  options: OpenOptions,
  heard: (changes: readonly TableChange[]) => void,
  opened: Opened,
): Promise<ChangeListener | BusListener> {
  const pool = await found();
  shared.pool = pool.pool;
  shared.handleText = pool.handleText;
  opened.ownsPool = pool.ownsPool;
  opened.held = pool.held;
  await firstConnection(shared.pool, pool.where);
  const loaded = await shared.loaded;
  const bus = options.bus ? await loaded.connectBus(options.bus, shared.pool) : undefined;
  opened.bus = bus;
  const listener = await shared.dialect.openChanges(() => pool.held, heard, options.log, !bus);
  opened.listener = listener;
  const capture = await installed(shared, options);
  opened.captured = loaded.captureLine(capture) + (bus ? `; on the bus at ${bus.where}` : "");
  await listener.start();
  if (bus) {
    opened.busListener = new loaded.BusListener(bus, () => shared.pool, heard, options.log);
    await opened.busListener.start();
  }
  if (capture.mode === "logical")
    opened.relay = startedRelay(loaded, shared, pool, options.log, bus);
  return opened.busListener ?? listener;
}

/** The relay of the `logical` mode, started: it tries to take the slot now and on a timer. */
function startedRelay(
  loaded: typeof LoadedOnOpen,
  shared: PostgresConnection,
  found: FoundPool,
  log: (line: string) => void,
  bus: BusConnection | undefined,
): LogicalRelay {
  const relay = new loaded.LogicalRelay(
    () => found.held,
    found.openWalStream,
    log,
    loaded.RELAY_RETRY_MS,
    bus,
  );
  relay.start();
  return relay;
}

/**
 * The app's setUp run, then livecmd's change feed installed over what it made (what
 * `livecmd db install` does) in the capture mode asked and allowed, and what the database
 * lacks for it said. Resolves the mode installed.
 */
async function installed(shared: PostgresConnection, options: OpenOptions): Promise<Capture> {
  const feed = await shared.loaded;
  await options.setUp?.(setUpView(shared)).catch((error: Error) => {
    throw new Error(`postgres({ setUp }) failed: ${error.message}; ${SET_UP_AT_ONCE}`, {
      cause: error,
    });
  });
  const { capture } = await feed.installCapture(shared.pool, options.capture, !!options.bus);
  if (!(await feed.hasEventTriggers(shared.pool))) options.log(feed.WITHOUT_EVENT_TRIGGERS);
  if (capture.mode === "logical" && (await feed.keepsWalWithoutLimit(shared.pool)))
    options.log(`livecmd: warning: ${feed.UNLIMITED_KEEP}`);
  for (const name of await feed.unknownFunctions(shared.pool, options.pureFunctions))
    options.log(
      `livecmd: postgres(url, { pureFunctions }) names ${JSON.stringify(name)}, which is no function of this database ("name" or "schema.name", no parentheses)`,
    );
  return capture;
}

/** The database as setUp sees it: ready at once, since setUp runs before `ready` settles. */
function setUpView(shared: PostgresConnection): PostgresDatabase {
  return new PostgresDatabase(shared, {
    ready: Promise.resolve(),
    caughtUp: async () => {},
    close: async () => {},
    hear: async () => () => {},
    notHeard: () => FEED_NOT_HEARD,
    captureText: () => undefined,
  });
}
