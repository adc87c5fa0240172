import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CommandModule } from "yargs";
import type { App } from "../runtime/app.ts";
import { sqliteDriverProblem } from "../runtime/db/sqliteDriver.ts";
// Light imports only: the CLI registers this command on every run, `codegen` included; the
// MCP server runtime loads when `serve` actually runs.
import { DEFAULT_PAGE_SIZE } from "../runtime/server/defaultPageSize.ts";
import { importModule } from "./importModule.ts";
import { InputError } from "./inputError.ts";
import { loadProjectConfig, resolveAppModule } from "./projectConfig.ts";

interface ServeArguments {
  app?: string;
  http?: number;
  "page-size": number;
  "allow-stale"?: boolean;
}

/** `livecmd serve`: the app's commands over MCP, on stdio or Streamable HTTP. */
export const serveCommand: CommandModule<object, ServeArguments> = {
  command: "serve",
  describe:
    "Serve the app's granted commands over MCP: stdio by default, Streamable HTTP on 127.0.0.1 with --http",
  builder: (argv) =>
    argv
      .option("app", {
        type: "string",
        describe:
          "The app module, compiled (dist/app.js, plain Node) or TypeScript (through tsx); its default export is the app (default: src/app.ts, then app.ts)",
      })
      .option("http", {
        type: "number",
        describe:
          "Serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0 picks a free port)",
      })
      .option("page-size", {
        type: "number",
        default: DEFAULT_PAGE_SIZE,
        describe: "Entries per page of tools/list, resources/list and resources/templates/list",
      })
      .option("allow-stale", {
        type: "boolean",
        describe:
          "Serve although catalog.json no longer matches the app's commands (only what matches is served)",
      })
      .check((args) => {
        if (args.http !== undefined && !isPort(args.http))
          throw new InputError(`--http must be a port from 0 to 65535, got ${args.http}`);
        if (!Number.isSafeInteger(args["page-size"]) || args["page-size"] < 1)
          throw new InputError(`--page-size must be a positive integer, got ${args["page-size"]}`);
        return true;
      })
      .example(
        "$0 serve --app dist/app.js",
        "stdio, for a host that starts the server itself (Claude Desktop, the MCP Inspector)",
      )
      .example(
        "$0 serve --app dist/app.js --http 3000",
        "Streamable HTTP at http://127.0.0.1:3000/mcp",
      ),
  handler: async (argv) => {
    const cwd = process.cwd();
    const appModule = resolveAppModule(
      argv.app,
      argv.app === undefined ? await loadProjectConfig(cwd) : { config: {}, source: undefined },
      cwd,
    );
    const driverProblem = sqliteDriverProblem(path.resolve(cwd, appModule));
    if (driverProblem) throw new InputError(driverProblem);
    const app = await loadApp(appModule, cwd);
    const options = {
      pageSize: argv["page-size"],
      allowStale: argv["allow-stale"] === true,
      version: packageVersionNear(path.resolve(cwd, appModule)),
    };
    const { StaleCatalogError } = await import("../runtime/server/catalogDrift.ts");
    try {
      await serve(app, argv.http, options);
    } catch (error) {
      if (error instanceof StaleCatalogError) throw new InputError(error.message);
      throw error;
    }
  },
};

async function serve(
  app: App,
  port: number | undefined,
  options: { pageSize: number; allowStale: boolean; version: string | undefined },
): Promise<void> {
  if (port === undefined) {
    const { serveStdio } = await import("../runtime/server/serveStdio.ts");
    serveStdio(app, options);
    process.stderr.write(`livecmd: serving app "${app.name}" over stdio\n`);
    return;
  }
  const { serveHttp } = await import("../runtime/server/serveHttp.ts");
  const serving = await serveHttp(app, { ...options, port });
  process.stdout.write(`livecmd: serving app "${app.name}" at ${serving.url.href}\n`);
  const stop = () => void serving.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function loadApp(file: string, cwd: string): Promise<App> {
  const app = (await importModule(file, cwd)).default as App | undefined;
  if (typeof app !== "object" || app === null || !(app.commands instanceof Map)) {
    throw new InputError(
      `${file} must export the app as its default export (export default defineApp({ ... }))`,
    );
  }
  if (!app.generated) {
    throw new InputError(
      `the app in ${file} has no generated catalog; run \`npx livecmd codegen\` and pass defineApp({ generated: { catalog, templates } })`,
    );
  }
  return app;
}

/** The version in the package.json nearest above the app module: the server's version unless the app sets one. */
function packageVersionNear(file: string): string | undefined {
  for (let folder = path.dirname(file); ; folder = path.dirname(folder)) {
    const manifest = path.join(folder, "package.json");
    if (existsSync(manifest))
      return (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version;
    if (path.dirname(folder) === folder) return undefined;
  }
}

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 65535;
}
