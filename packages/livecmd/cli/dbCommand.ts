import type { Argv, CommandModule } from "yargs";
import { InputError } from "./inputError.ts";

interface InstallArguments {
  url?: string;
}

/** `livecmd db install`: the PostgreSQL change feed, for teams that run migrations themselves. */
const installCommand: CommandModule<object, InstallArguments> = {
  command: "install",
  describe:
    "Install livecmd's change feed on a PostgreSQL database (schema livecmd, a statement trigger per table; idempotent). Serving does it on start; run it after a migration that adds tables",
  builder: (argv) =>
    argv.option("url", {
      type: "string",
      describe: "The database's postgres:// URL (default: $DATABASE_URL)",
    }),
  handler: async (argv) => {
    const url = argv.url ?? process.env.DATABASE_URL;
    if (!url)
      throw new InputError(
        "db install needs a PostgreSQL database: pass --url or set DATABASE_URL",
      );
    const {
      redacted,
      urlProblem,
      loadPg,
      firstConnection,
      installCapture,
      captureLine,
      hasEventTriggers,
      WITHOUT_EVENT_TRIGGERS,
    } = await (await import("livecmd/internal")).postgresInstall();
    const problem = urlProblem(url);
    if (problem) throw new InputError(problem);
    let pg;
    try {
      pg = loadPg();
    } catch (error) {
      throw new InputError((error as Error).message);
    }
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await firstConnection(pool, redacted(url)).catch((error: Error) => {
        throw new InputError(error.message);
      });
      const { capture, added } = await installCapture(pool, "auto");
      process.stdout.write(
        `livecmd: the change feed is installed on ${redacted(url)}; ${added} ${added === 1 ? "table" : "tables"} newly watched\n${captureLine(capture)}\n`,
      );
      if (!(await hasEventTriggers(pool))) process.stderr.write(`${WITHOUT_EVENT_TRIGGERS}\n`);
    } finally {
      await pool.end();
    }
  },
};

/** `livecmd db ...`: the app's database. */
export const dbCommand: CommandModule = {
  command: "db",
  describe: "The app's database: `db install` sets PostgreSQL up for live updates across processes",
  builder: (argv: Argv) =>
    argv.command(installCommand).demandCommand(1, "name a db command: install"),
  handler: () => {},
};
