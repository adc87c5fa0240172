import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import type { App } from "../app.ts";
// Light imports only: the CLI registers this command on every run, `codegen` included; the
// MCP server runtime loads when `serve` actually runs.
import { DEFAULT_PAGE_SIZE } from "./defaultPageSize.ts";

interface ServeArguments {
  app: string;
  http?: number;
  "page-size": number;
}

/** `livecmd serve`: the app's commands over MCP, on stdio or Streamable HTTP. */
export const serveCommand: CommandModule<object, ServeArguments> = {
  command: "serve",
  describe: "Serve the app's granted commands over MCP: stdio by default, Streamable HTTP on 127.0.0.1 with --http",
  builder: (argv: Argv<object>) =>
    argv
      .option("app", { type: "string", default: "example/app.ts", describe: "The app module; its default export is the app, with its generated catalog" })
      .option("http", { type: "number", describe: "Serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0 picks a free port)" })
      .option("page-size", { type: "number", default: DEFAULT_PAGE_SIZE, describe: "Entries per page of tools/list, resources/list and resources/templates/list" })
      .check((args) => {
        if (args.http !== undefined && !isPort(args.http)) throw new Error(`--http must be a port from 0 to 65535, got ${args.http}`);
        if (!Number.isSafeInteger(args["page-size"]) || args["page-size"] < 1) throw new Error(`--page-size must be a positive integer, got ${args["page-size"]}`);
        return true;
      })
      .strict()
      .example("$0 serve", "stdio, for a client that starts the server itself (Claude Desktop, the MCP Inspector)")
      .example("$0 serve --http 3000", "Streamable HTTP at http://127.0.0.1:3000/mcp") as Argv<ServeArguments>,
  handler: async (argv: ArgumentsCamelCase<ServeArguments>) => {
    const app = await loadApp(argv.app);
    const pageSize = argv["page-size"];
    if (argv.http === undefined) {
      const { serveStdio } = await import("./serveStdio.ts");
      serveStdio(app, { pageSize });
      process.stderr.write(`livecmd: serving app "${app.name}" over stdio\n`);
      return;
    }
    const { serveHttp } = await import("./serveHttp.ts");
    const serving = await serveHttp(app, { port: argv.http, pageSize });
    process.stdout.write(`livecmd: serving app "${app.name}" at ${serving.url.href}\n`);
    const stop = () => void serving.close().then(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
};

async function loadApp(path: string): Promise<App> {
  const module = (await import(pathToFileURL(resolve(process.cwd(), path)).href)) as { default?: unknown };
  const app = module.default as App | undefined;
  if (typeof app !== "object" || app === null || !(app.commands instanceof Map)) {
    throw new Error(`livecmd: ${path} must export the app as its default export (export default defineApp({ ... }))`);
  }
  if (!app.generated) {
    throw new Error(`livecmd: the app in ${path} has no generated catalog; run \`livecmd codegen\` and pass defineApp({ generated: { catalog, templates } })`);
  }
  return app;
}

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 65535;
}
