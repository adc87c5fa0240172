import { existsSync } from "node:fs";
import path from "node:path";
import type { CommandModule, Options } from "yargs";
import type { App } from "livecmd";
// Light imports only: the CLI registers this command on every run, `codegen` included; the
// MCP server runtime (livecmd/server) loads when `serve` actually runs.
import {
  DEFAULT_CONFIRM_TIMEOUT_MS,
  DEFAULT_HOST,
  DEFAULT_LOG_FORMAT,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SUBSCRIPTION_LIMITS,
  FAIR_SHARES,
  LOG_FORMATS,
  packageVersionNear,
  stdioServing,
  type LogFormat,
} from "livecmd/internal";
import type { ServerLog } from "livecmd/server";
import type { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { httpFlagsProblem, type HttpFlags } from "./httpServeOptions.ts";
import { loadApp } from "./loadApp.ts";
import { InputError } from "./inputError.ts";
import {
  codegenAppModule,
  DEFAULT_APP_MODULES,
  loadProjectConfig,
  resolveAppModule,
  resolveOutFolder,
  type ProjectConfig,
} from "./projectConfig.ts";

export interface ServeArguments extends HttpFlags {
  app?: string;
  skills?: string;
  http?: number;
  "page-size": number;
  "allow-stale"?: boolean;
  "log-format": LogFormat;
  "confirm-timeout"?: number;
}

/**
 * `serve`'s flags, as yargs options: the yargs command and the direct path of a host's start
 * (`directServeArguments`) read the same table.
 */
export const SERVE_OPTIONS = {
  app: {
    type: "string",
    describe: `The app module, compiled (dist/app.js, plain Node) or TypeScript (through tsx); its default export is the app (default: ${DEFAULT_APP_MODULES.join(", then ")})`,
  },
  http: {
    type: "number",
    describe:
      "Serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0 picks a free port)",
  },
  skills: {
    type: "string",
    describe:
      "The agent skills to serve (skills/list, skills/get): a folder of skill folders, each with a SKILL.md (default: the skills/ folder codegen writes into its output, when there is one)",
  },
  "page-size": {
    type: "number",
    default: DEFAULT_PAGE_SIZE,
    describe: "Entries per page of tools/list, resources/list and resources/templates/list",
  },
  "log-format": {
    choices: LOG_FORMATS,
    default: DEFAULT_LOG_FORMAT,
    describe:
      "Log lines on stderr: pretty (`livecmd: …`, one readable line each) or json (one JSON object a line: level, time, req, principal, msg)",
  },
  "confirm-timeout": {
    type: "number",
    describe: `Seconds a person has to answer a confirm command's question (default ${DEFAULT_CONFIRM_TIMEOUT_MS / 1000}); then the call ends and nothing runs`,
  },
  "allow-stale": {
    type: "boolean",
    describe:
      "Serve although catalog.json no longer matches the app's commands (only what matches is served)",
  },
  host: {
    type: "string",
    describe: `HTTP: the address to listen on (default ${DEFAULT_HOST}); anything but loopback needs --tokens or --issuer`,
  },
  tokens: {
    type: "string",
    describe:
      "HTTP: bearer tokens from FILE, one `token [scope ...] [# client name]` a line; re-read on SIGHUP",
  },
  issuer: {
    type: "string",
    describe: "HTTP: accept JWT access tokens of this OAuth authorization server (with --audience)",
  },
  audience: {
    type: "string",
    describe: "HTTP: the audience (`aud`) tokens must name: this server's URL as clients reach it",
  },
  "jwks-uri": {
    type: "string",
    describe: "HTTP: the issuer's signing keys (default: from its metadata document)",
  },
  "require-scope": {
    type: "string",
    array: true,
    describe: "HTTP: a scope every request's token needs (403 without it); repeatable",
  },
  "public-url": {
    type: "string",
    describe:
      "HTTP: the endpoint's URL as clients reach it behind a reverse proxy (https://mcp.example.com/mcp); on another host it needs --tokens or --issuer",
  },
  "allowed-host": {
    type: "string",
    array: true,
    describe:
      "HTTP: a Host header to accept besides loopback and --public-url's; repeatable; one not of this machine (localhost, *.localhost) needs --tokens or --issuer",
  },
  "allowed-origin": {
    type: "string",
    array: true,
    describe: "HTTP: a browser Origin (scheme://host:port) to accept; repeatable",
  },
  "session-idle": {
    type: "number",
    describe: `HTTP: seconds a 2025-era session may stay idle before it is closed (default ${DEFAULT_SESSION_IDLE_MS / 1000})`,
  },
  "max-subscriptions": {
    type: "number",
    describe: `URIs watched by the whole server, both eras (default ${DEFAULT_SUBSCRIPTION_LIMITS.total})`,
  },
  "max-subscriptions-per-principal": {
    type: "number",
    describe: `HTTP: URIs one principal (or connection without auth) watches in all (default 1/${FAIR_SHARES} of --max-subscriptions: ${DEFAULT_SUBSCRIPTION_LIMITS.perPrincipal})`,
  },
  "max-sessions": {
    type: "number",
    describe: `HTTP: 2025-era sessions open at once (default ${DEFAULT_SUBSCRIPTION_LIMITS.sessionsTotal}); past it initialize is 503`,
  },
  "max-sessions-per-principal": {
    type: "number",
    describe: `HTTP: 2025-era sessions one principal (or connection without auth) holds open (default 1/${FAIR_SHARES} of --max-sessions: ${DEFAULT_SUBSCRIPTION_LIMITS.sessionsPerPrincipal}); past it initialize is 429`,
  },
} as const satisfies Record<keyof ServeArguments, Options>;

/** What is wrong with the flags together, thrown as an `InputError`; `true` when nothing is. */
export function checkServeArguments(args: ServeArguments): true {
  if (args.http !== undefined && !isPort(args.http))
    throw new InputError(`--http must be a port from 0 to 65535, got ${args.http}`);
  const timeout = args["confirm-timeout"];
  if (timeout !== undefined && !(timeout > 0 && Number.isFinite(timeout)))
    throw new InputError(`--confirm-timeout must be a positive number of seconds, got ${timeout}`);
  const httpProblem = httpFlagsProblem(args, args.http !== undefined);
  if (httpProblem) throw new InputError(httpProblem);
  return true;
}

/** `livecmd serve`: the app's commands over MCP, on stdio or Streamable HTTP. */
export const serveCommand: CommandModule<object, ServeArguments> = {
  command: "serve",
  describe:
    "Serve the app's granted commands over MCP: stdio by default, Streamable HTTP on 127.0.0.1 with --http",
  builder: (argv) =>
    argv
      .options(SERVE_OPTIONS)
      .check(checkServeArguments)
      .example(
        "$0 serve --app dist/app.js",
        "stdio, for a host that starts the server itself (Claude Desktop, the MCP Inspector)",
      )
      .example(
        "$0 serve --app dist/app.js --http 3000",
        "Streamable HTTP at http://127.0.0.1:3000/mcp",
      )
      .example(
        "$0 serve --app dist/app.js --http 3000 --host 0.0.0.0 --tokens tokens.txt",
        "on every interface, for clients with a token of tokens.txt",
      ),
  handler: (argv) => runServe(argv),
};

/** What `livecmd serve` does with its checked flags, whichever path parsed them. */
export async function runServe(argv: ServeArguments): Promise<void> {
  const cwd = process.cwd();
  // Over stdio, only the stdio server's modules load, while the app's do: a host waits on them
  // at every start.
  const stdio = argv.http === undefined ? stdioServing() : undefined;
  const project = await loadProjectConfig(cwd);
  const appModule = resolveAppModule(argv.app, project, cwd);
  const app = await loadApp(appModule, cwd);
  const { serverLog } = await (stdio ?? import("livecmd/server"));
  const log = serverLog(argv["log-format"]);
  const { skills, found } = await loadedSkills(
    argv.skills === undefined ? skillFolders(project, appModule, cwd) : [argv.skills],
    argv.skills !== undefined,
    cwd,
    log,
  );
  const options = {
    log,
    ...(skills && { skills }),
    pageSize: argv["page-size"],
    allowStale: argv["allow-stale"] === true,
    version: packageVersionNear(path.resolve(cwd, appModule)),
    ...(argv["confirm-timeout"] !== undefined && {
      confirmTimeoutMs: argv["confirm-timeout"] * 1000,
    }),
  };
  await serve(app, argv.http === undefined ? undefined : { port: argv.http, flags: argv }, options);
  // Once serving: a start refused for bad input says so in one line.
  log.info(found);
}

/**
 * Where the skills are looked for when --skills names no folder, in order: the skills/ of the
 * output folder beside the served module (a build that copies it beside the compiled app), then
 * of the one codegen writes (a compiled `dist/app.js` served from the project its source is in).
 */
function skillFolders(project: ProjectConfig, appModule: string, cwd: string): string[] {
  const served = path.join(resolveOutFolder(undefined, project, appModule), "skills");
  const source = codegenAppModule(project, cwd);
  const written = source && path.join(resolveOutFolder(undefined, project, source), "skills");
  return written && written !== served ? [served, written] : [served];
}

/**
 * The skills in the first of `folders` (relative to `cwd`) that exists, loaded with the SDK's
 * `loadSkills`, and `found`: where they came from, or that there were none (no folder exists, and
 * none was `named` by --skills: an app served before its first codegen, or deployed without its
 * generated folder). Problems with a skill are logged.
 */
async function loadedSkills(
  folders: readonly string[],
  named: boolean,
  cwd: string,
  log: ServerLog,
): Promise<{ skills?: SkillsExtension; found: string }> {
  const folder = folders.find((candidate) => existsSync(path.resolve(cwd, candidate)));
  if (folder === undefined) {
    if (named) throw new InputError(`--skills ${folders[0]} does not exist`);
    return {
      found: `no agent skills served: no ${folders.join(" or ")} (npx livecmd codegen writes them; where the app is deployed without its source, copy them there or name them with --skills <folder>)`,
    };
  }
  const root = path.resolve(cwd, folder);
  // The SDK's own loader, not livecmd/server's re-export: a stdio start loads no HTTP modules.
  const { loadSkills } = await import("@modelcontextprotocol/server/ext/skills/node");
  try {
    const skills = await loadSkills(root, {
      onWarning: ({ path: file, message }) => log.warn(`skills: ${file}: ${message}`),
    });
    return { skills, found: `serving the agent skills in ${folder}` };
  } catch (error) {
    throw new InputError(`the skills in ${folder} cannot be served: ${(error as Error).message}`);
  }
}

async function serve(
  app: App,
  http: { port: number; flags: HttpFlags } | undefined,
  options: {
    log: ServerLog;
    pageSize: number;
    allowStale: boolean;
    version: string | undefined;
    confirmTimeoutMs?: number;
    skills?: SkillsExtension;
  },
): Promise<void> {
  await app.ready().catch((error: Error) => {
    throw new InputError(
      `app "${app.name}" cannot open its database: ${error.message.replace(/^livecmd: /, "")}`,
    );
  });
  if (http === undefined) {
    const { serveStdio } = await stdioServing();
    // What serveStdio refuses (a stale catalog, a page size or limit out of range) is the
    // app's or the flags' to fix, in the runtime's words.
    let serving;
    try {
      serving = serveStdio(app, options);
    } catch (error) {
      throw new InputError((error as Error).message);
    }
    options.log.info(`serving app "${app.name}" over stdio`);
    // Serving ends with stdin. What is left open then is the app's own (a pg.Pool's idle
    // clients), which would hold the process for their timeout.
    process.stdin.once("end", () => void serving.close().then(() => process.exit(0)));
    return;
  }
  const { serveHttp } = await import("livecmd/server");
  const { httpServeOptions } = await import("./httpServeOptions.ts");
  const httpOptions = await httpServeOptions(http.flags, options.log);
  let serving;
  try {
    serving = await serveHttp(app, { ...options, ...httpOptions, port: http.port });
  } catch (error) {
    throw new InputError((error as Error).message.replace(/^livecmd: /, ""));
  }
  process.stdout.write(`livecmd: serving app "${app.name}" at ${serving.url.href}\n`);
  // A balancer's SIGTERM: drain (requests in progress finish, streams end gracefully), exit 0.
  const stop = () => {
    options.log.info("draining: no new connections; ending streams, finishing requests");
    void serving.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 65535;
}
