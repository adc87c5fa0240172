import type { Argv, CommandModule } from "yargs";
import { isSetupError, type postgresInstall } from "livecmd/internal";
import { InputError } from "./inputError.ts";

interface DbArguments {
  url?: string;
}

type PostgresInstall = Awaited<ReturnType<typeof postgresInstall>>;
type PgPool = Parameters<PostgresInstall["installCapture"]>[0];

/** What each `db` command is given: the pool (one connection), its URL as logs print it, livecmd's PostgreSQL half. */
interface OnDatabase {
  pool: PgPool;
  where: string;
  feed: PostgresInstall;
}

/**
 * Runs `use` on the database `--url` or `DATABASE_URL` names: its URL checked, pg loaded, a
 * pool of one connection opened and checked, then ended. A problem with any of it is the
 * user's to fix, said in one line.
 */
async function onDatabase(
  command: string,
  url: string | undefined,
  use: (database: OnDatabase) => Promise<void>,
): Promise<void> {
  if (!url)
    throw new InputError(
      `db ${command} needs a PostgreSQL database: pass --url or set DATABASE_URL`,
    );
  const feed = await (await import("livecmd/internal")).postgresInstall();
  const problem = feed.urlProblem(url);
  if (problem) throw new InputError(problem);
  let pg;
  try {
    pg = feed.loadPg();
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const where = feed.redacted(url);
  try {
    await feed.firstConnection(pool, where).catch((error: Error) => {
      throw new InputError(error.message);
    });
    // What livecmd refuses to do to the database (a slot a process streams) is the user's to fix.
    await use({ pool, where, feed }).catch((error: Error) => {
      throw isSetupError(error) ? new InputError(error.message) : error;
    });
  } finally {
    await pool.end();
  }
}

/** A `db` command on the database `--url` or `DATABASE_URL` names. */
function dbSubcommand(
  command: string,
  describe: string,
  run: (database: OnDatabase) => Promise<void>,
): CommandModule<object, DbArguments> {
  return {
    command,
    describe,
    builder: (argv) =>
      argv.option("url", {
        type: "string",
        describe: "The database's postgres:// URL (default: $DATABASE_URL)",
      }),
    handler: (argv) => onDatabase(command, argv.url ?? process.env.DATABASE_URL, run),
  };
}

/** `livecmd db install`: the PostgreSQL change feed, for teams that run migrations themselves. */
const installCommand = dbSubcommand(
  "install",
  "Install livecmd's change capture on a PostgreSQL database (schema livecmd; logical decoding where wal_level = logical, else a statement trigger per table; idempotent). Serving does it on start; run it after a migration that adds tables",
  async ({ pool, where, feed }) => {
    const { capture, added } = await feed.installCapture(pool, "auto");
    process.stdout.write(
      `livecmd: the change feed is installed on ${where}; ${added} ${added === 1 ? "table" : "tables"} newly watched\n${feed.captureLine(capture)}\n`,
    );
    if (!(await feed.hasEventTriggers(pool)))
      process.stderr.write(`${feed.WITHOUT_EVENT_TRIGGERS}\n`);
  },
);

/** `livecmd db status`: which capture a database has, the one it allows, and its slot. */
const statusCommand = dbSubcommand(
  "status",
  "Say how livecmd captures a PostgreSQL database's changes, which mode it allows, and whether livecmd's slot is read (exit 1 when something should not stay as it is)",
  async ({ pool, where, feed }) => {
    const status = await feed.captureStatus(pool);
    const installed = status.installed
      ? `${status.installed === "logical" ? "logical decoding" : "triggers that NOTIFY"} installed`
      : "not installed (a serving process installs it on start, as livecmd db install does)";
    const lines = [
      `livecmd: ${where}: ${installed}`,
      `livecmd: a process starting with capture "auto" would use ${status.allowed.mode === "logical" ? "logical decoding" : "triggers"}: ${status.allowed.why}`,
    ];
    const { slot } = status;
    if (slot)
      lines.push(
        `livecmd: slot ${slot.name}: ${slot.relay === null ? "read by no process" : `streamed by backend ${slot.relay} (a serving process's relay)`}; ${feed.bytesText(slot.kept)} of WAL kept, ${feed.bytesText(slot.behind)} not yet passed on; wal_status ${slot.walStatus}`,
      );
    const warnings = feed.statusWarnings(status);
    process.stdout.write(
      [...lines, ...warnings.map((warning) => `livecmd: warning: ${warning}`)].join("\n") + "\n",
    );
    if (warnings.length > 0) process.exitCode = 1;
  },
);

/** `livecmd db uninstall`: everything livecmd installed on a database, gone. */
const uninstallCommand = dbSubcommand(
  "uninstall",
  "Remove livecmd from a PostgreSQL database: its slot, publication, triggers, event triggers and schema livecmd (shared sessions included); tables get back their replica identity. Stop every process serving the app first",
  async ({ pool, where, feed }) => {
    const gone = await feed.uninstallCapture(pool);
    const removed = [
      gone.slot && `slot ${gone.slot}`,
      gone.publication && "publication livecmd",
      gone.triggered > 0 &&
        `the triggers of ${gone.triggered} ${gone.triggered === 1 ? "table" : "tables"}`,
      gone.schema && "schema livecmd",
    ].filter((each) => typeof each === "string");
    const restored =
      gone.restored > 0
        ? `; ${gone.restored} ${gone.restored === 1 ? "table has" : "tables have"} the replica identity back that they had before`
        : "";
    process.stdout.write(
      `livecmd: ${removed.length > 0 ? `removed ${removed.join(", ")} from ${where}` : `nothing of livecmd's is installed on ${where}`}${restored}\n`,
    );
  },
);

/** `livecmd db ...`: the app's database. */
export const dbCommand: CommandModule = {
  command: "db",
  describe:
    "The app's PostgreSQL database: `db install` sets it up for live updates across processes, `db status` says how its changes are captured, `db uninstall` removes livecmd from it",
  builder: (argv: Argv) =>
    argv
      .command(installCommand)
      .command(statusCommand)
      .command(uninstallCommand)
      .demandCommand(1, "name a db command: install, status or uninstall"),
  handler: () => {},
};
