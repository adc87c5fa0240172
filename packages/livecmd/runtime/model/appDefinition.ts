import type { Command } from "./command.ts";
import { isCommand } from "./command.ts";
import { CATALOG_VERSION, type Catalog, type Generated } from "./catalog.ts";
import type { DatabaseSource } from "../db/open/openDatabase.ts";
import { byCodeUnit } from "../text/byCodeUnit.ts";
import { DEFAULT_WATCH_TOOL, watchToolNameProblem } from "./watchTool.ts";

export interface AppDefinition {
  /** The URI scheme of the app's resources: `app` gives `app://customers_show/12`; also the MCP server's name. */
  name: string;
  /** The MCP server's version (`serverInfo.version`); `livecmd serve` takes the app's package.json version when absent. */
  version?: string;
  /**
   * What the app is, in a sentence or two: `serverInfo.description`, and the opening of the agent
   * skill codegen writes (a string literal, which codegen reads).
   */
  description?: string;
  /** Every command, keyed by export name (spread the command modules: `{ ...customers }`). */
  commands: Record<string, Command>;
  /**
   * What an AI agent may use. A command not granted is invisible and unreachable over MCP.
   * `scopes`: the OAuth scopes a principal needs for a granted command, by command name, when
   * the server authenticates its clients; to a principal without them the command is as
   * invisible as an ungranted one.
   */
  agent: {
    grant: Command[];
    scopes?: Readonly<Record<string, readonly string[]>>;
    /**
     * The tool that waits for a watched URI to change, for hosts that call tools but do not
     * subscribe to resources: its name (`watch_resources` when absent), or `false` to serve none.
     * Listed to every principal that may read some command. A literal, which codegen reads.
     */
    watchTool?: string | false;
  };
  /**
   * The app's database, opened once, on first use: a function that opens SQLite (a
   * better-sqlite3 `Database`), or `postgres(url | pg.Pool)`.
   */
  database?: DatabaseSource;
  /**
   * The app's `generated/` output, which the MCP server serves: the parsed catalog.json and the
   * `templates` of templates.ts. Checked when the app is defined.
   */
  generated?: { catalog: unknown; templates: Generated["templates"] };
}

/** What `defineApp` takes, as a message shows it. */
const DEFINITION_SHAPE = "defineApp({ name, commands: { ... }, agent: { grant: [...] } })";

/**
 * `definition` has the shape `AppDefinition` types (an app in JavaScript, or cast, may not):
 * else a message naming the part and what it should be, not a TypeError from inside livecmd.
 */
export function checkDefinitionShape(definition: unknown): asserts definition is AppDefinition {
  const problem = shapeProblem(definition);
  if (problem) throw new TypeError(`livecmd: ${problem}; ${DEFINITION_SHAPE}`);
}

function shapeProblem(definition: unknown): string | undefined {
  if (!isRecord(definition)) return `defineApp was given ${kindOf(definition)}, not an object`;
  const { name, commands, agent } = definition;
  if (typeof name !== "string" || name === "")
    return `defineApp's name (the URI scheme, "app" for app://...) is ${kindOf(name)}, not a non-empty string`;
  if (!isRecord(commands))
    return `defineApp's commands is ${kindOf(commands)}, not an object of commands (spread the command modules: { ...customers })`;
  if (!isRecord(agent) || !Array.isArray(agent.grant))
    return `defineApp's agent.grant is ${kindOf(isRecord(agent) ? agent.grant : agent)}, not a list of the commands an agent may use (an empty list grants none)`;
  const index = agent.grant.findIndex((granted) => !isCommand(granted));
  if (index >= 0)
    return `defineApp's agent.grant[${index}] is ${kindOf(agent.grant[index])}, not a command: grant takes the commands themselves (grant: [customers_show]), not their names`;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as a message names what it is: `undefined`, `an array`, `the string "a"`. */
function kindOf(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `${/^[aeiou]/.test(typeof value) ? "an" : "a"} ${typeof value}`;
}

/** `agent.scopes`, checked: every key names one of the app's commands, every scope is a non-empty string. */
export function checkedScopes(
  app: string,
  commands: ReadonlyMap<string, Command>,
  scopes: Readonly<Record<string, readonly string[]>>,
): Readonly<Record<string, readonly string[]>> {
  for (const [name, required] of Object.entries(scopes)) {
    if (!commands.has(name)) {
      throw new Error(
        `livecmd: agent.scopes names "${name}", which is not one of app "${app}"'s commands`,
      );
    }
    if (
      !Array.isArray(required) ||
      !required.every((scope) => typeof scope === "string" && scope !== "")
    ) {
      throw new Error(
        `livecmd: agent.scopes.${name} must be a list of scope names, e.g. ["customers:write"]`,
      );
    }
  }
  return scopes;
}

/** The watch tool's name as `agent.watchTool` sets it, checked; undefined for `false`. */
export function checkedWatchTool(
  setting: string | false | undefined,
  commands: Iterable<string>,
): string | undefined {
  if (setting === false) return undefined;
  const name = setting ?? DEFAULT_WATCH_TOOL;
  const problem =
    typeof name === "string"
      ? watchToolNameProblem(name, commands)?.message
      : "agent.watchTool must be a tool name or false";
  if (problem) throw new Error(`livecmd: ${problem}`);
  return name;
}

export function nameCommands(commands: Record<string, Command>): Map<string, Command> {
  const named = new Map<string, Command>();
  for (const key of Object.keys(commands).sort(byCodeUnit)) {
    const command = commands[key];
    if (!isCommand(command)) continue;
    const name = command.options.name ?? key;
    if (named.has(name))
      throw new Error(`livecmd: two commands are named "${name}"; rename one or set options.name`);
    named.set(name, command);
  }
  return new Map([...named].sort(([a], [b]) => byCodeUnit(a, b)));
}

export function checkGenerated(
  app: string,
  { catalog, templates }: NonNullable<AppDefinition["generated"]>,
): Generated {
  const shaped = catalog as Partial<Catalog> | null;
  if (typeof shaped !== "object" || shaped === null || !Array.isArray(shaped.commands)) {
    throw new Error(
      `livecmd: app "${app}" was given a catalog that is not a livecmd catalog.json; pass the file \`livecmd codegen\` wrote`,
    );
  }
  if (shaped.catalogVersion !== CATALOG_VERSION) {
    throw new Error(
      `livecmd: app "${app}" was given a catalog.json of format ${String(shaped.catalogVersion ?? 1)}, and this livecmd reads format ${CATALOG_VERSION}; run \`npx livecmd codegen\` to write it again`,
    );
  }
  if (shaped.app !== app) {
    throw new Error(
      `livecmd: the catalog was generated for app "${String(shaped.app)}", not "${app}"; run \`npx livecmd codegen --app <this app's module>\``,
    );
  }
  return { catalog: shaped as Catalog, templates };
}
