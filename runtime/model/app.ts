import { CATALOG_VERSION, type Catalog, type Generated } from "./catalog.ts";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { byCodeUnit } from "../text/byCodeUnit.ts";
import { argumentsObject } from "./commandArguments.ts";
import type { FieldError } from "../uri/template.ts";
import { argumentValidator } from "../validation/argumentValidator.ts";
import { InvalidArguments } from "../validation/invalidArguments.ts";
import { isCommand, type Command } from "./command.ts";
import { Origin, type Context } from "./context.ts";
import type { AppDatabase, Database } from "../db/database.ts";
import { anyRowsOf, type TableChange, type TableRead } from "../db/keyedAccess.ts";
import { openDatabase, type DatabaseSource } from "../db/openDatabase.ts";

export interface AppDefinition {
  /** The URI scheme of the app's resources: `app` gives `app://customers_show/12`; also the MCP server's name. */
  name: string;
  /** The MCP server's version (`serverInfo.version`); `livecmd serve` takes the app's package.json version when absent. */
  version?: string;
  /** Every command, keyed by export name (spread the command modules: `{ ...customers }`). */
  commands: Record<string, Command>;
  /**
   * What an AI agent may use. A command not granted is invisible and unreachable over MCP.
   * `scopes`: the OAuth scopes a principal needs for a granted command, by command name, when
   * the server authenticates its clients; to a principal without them the command is as
   * invisible as an ungranted one.
   */
  agent: { grant: Command[]; scopes?: Readonly<Record<string, readonly string[]>> };
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

/** What middleware sees: the handler's context plus the arguments it will get. */
export interface Invocation extends Context {
  readonly args: readonly unknown[];
}

export type Middleware = (invocation: Invocation, next: () => Promise<unknown>) => Promise<unknown>;

export interface RunOptions {
  origin: Origin;
  /** The principal an agent's run is for, when the server authenticates (see `Context.auth`). */
  auth?: AuthInfo | undefined;
  /** Told what the run reads and whether it looks at its principal: what a live subscription of it depends on. */
  observer?: RunObserver;
  /** Told each URI the run links to (`ctx.link`); links go nowhere when absent. */
  onLink?: (uri: string) => void;
  /** The run's cancellation (`ctx.signal`); one that never fires when absent. */
  signal?: AbortSignal;
  /** Told `ctx.progress(...)`; progress goes nowhere when absent. */
  onProgress?: (done: number, total?: number, message?: string) => void;
}

/** The signal of a run nobody can cancel. */
const NEVER_CANCELLED = new AbortController().signal;

/** What a live subscription learns from each run of its command. */
export interface RunObserver {
  /** The rows each statement read (by key, or whole tables). */
  read(reads: readonly TableRead[]): void;
  /** The run (the handler or a middleware) looked at `ctx.auth`: its result may differ by principal. */
  sawPrincipal(): void;
}

/**
 * Completes a template variable for an agent: the values to offer for `prefix`, given the
 * variables already filled in (`arguments`, by name, as typed). Runs as the agent, through the
 * middleware, counted against the command's rate limit; what it returns is merged with what the
 * variable's schema offers (enum constants, `true`/`false`) and capped at 100.
 */
export type Completer = (
  ctx: Context,
  prefix: string,
  context: { arguments: Readonly<Record<string, string>> },
) => readonly string[] | Promise<readonly string[]>;

/** What a committed write changed; listeners re-run what read it. */
export type ChangeListener = (changes: readonly TableChange[]) => void;

export class App {
  readonly name: string;
  readonly version: string | undefined;
  /** Commands by name, in code-unit order of name. */
  readonly commands: ReadonlyMap<string, Command>;
  readonly generated?: Generated;
  /** The commands `agent.grant` names, before any runtime `grant` or `revoke` (what codegen saw). */
  readonly definedGrant: ReadonlySet<string>;
  readonly #granted = new Set<string>();
  readonly #scopes: Readonly<Record<string, readonly string[]>>;
  readonly #middleware: Middleware[] = [];
  /** Completers by command name, then variable name. */
  readonly #completers = new Map<string, Map<string, Completer>>();
  readonly #grantListeners = new Set<() => void>();
  readonly #changeListeners = new Set<ChangeListener>();
  readonly #openDatabase?: DatabaseSource;
  #database?: AppDatabase;

  constructor(definition: AppDefinition) {
    this.name = definition.name;
    this.version = definition.version;
    this.commands = nameCommands(definition.commands);
    this.#openDatabase = definition.database;
    this.generated = definition.generated && checkGenerated(this.name, definition.generated);
    for (const granted of definition.agent.grant) this.#granted.add(this.nameOf(granted));
    this.definedGrant = new Set(this.#granted);
    this.#scopes = checkedScopes(this.name, this.commands, definition.agent.scopes ?? {});
  }

  /** The name a command is known by; throws for a command that is not part of this app. */
  nameOf(target: Command): string {
    for (const [name, command] of this.commands) if (command === target) return name;
    throw new Error(
      `livecmd: the command is not part of app "${this.name}"; add it to defineApp({ commands })`,
    );
  }

  isGranted(name: string): boolean {
    return this.#granted.has(name);
  }

  /**
   * Whether `auth` may use command `name`: it is granted, and when the server authenticates,
   * the principal has every scope `agent.scopes` asks of it.
   */
  mayUse(name: string, auth: AuthInfo | undefined): boolean {
    if (!this.#granted.has(name)) return false;
    const scopes = this.#scopes[name];
    return (
      auth === undefined ||
      scopes === undefined ||
      scopes.every((scope) => auth.scopes.includes(scope))
    );
  }

  /** Whether some granted command asks for scopes: then what a principal may list depends on who it is. */
  get hasScopedGrants(): boolean {
    return Object.keys(this.#scopes).length > 0;
  }

  /** Grants commands to the agent at runtime; connected clients are told the lists changed. */
  grant(...commands: Command[]): void {
    this.#changeGrants(commands, (name) => this.#granted.add(name));
  }

  revoke(...commands: Command[]): void {
    this.#changeGrants(commands, (name) => this.#granted.delete(name));
  }

  /** Calls `listener` whenever the set of granted commands changes; returns an unsubscribe. */
  onGrantsChanged(listener: () => void): () => void {
    this.#grantListeners.add(listener);
    return () => this.#grantListeners.delete(listener);
  }

  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  /** The app's database; writes through it, by commands or by the app's own code, are seen live. */
  get db(): AppDatabase {
    if (!this.#database) {
      if (!this.#openDatabase)
        throw new Error(
          `livecmd: app "${this.name}" has no database; pass defineApp({ database })`,
        );
      this.#database = openDatabase(this.#openDatabase, (changes) => this.#report(changes));
    }
    return this.#database;
  }

  /** Whether the app's database is PostgreSQL, which many serving processes may share. */
  get sharesDatabase(): boolean {
    return typeof this.#openDatabase === "object";
  }

  /**
   * Opens the app's database, if it has one (on PostgreSQL: connected, set up, the change feed
   * installed and listened to); rejects with why it cannot. `livecmd serve` waits for this
   * before it says it is serving.
   */
  async ready(): Promise<void> {
    if (this.#openDatabase) await this.db.get("SELECT 1 AS ready");
  }

  /** Resolves once every write committed so far has been reported to `onChange` listeners. */
  async changesCaughtUp(): Promise<void> {
    await this.#database?.caughtUp();
  }

  /** Closes the app's database, if it was opened (its connections, on PostgreSQL its change feed). */
  async close(): Promise<void> {
    const database = this.#database;
    this.#database = undefined;
    await database?.close();
  }

  /** Reports tables changed outside the database (or by SQL the runtime cannot see): any of their rows. */
  changed(...tables: string[]): void {
    this.#report(tables.map(anyRowsOf));
  }

  #report(changes: readonly TableChange[]): void {
    if (changes.length === 0) return;
    for (const listener of this.#changeListeners) listener(changes);
  }

  /** Calls `listener` after every committed write with what it changed; returns an unsubscribe. */
  onChange(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /**
   * Offers values for `variable` of `command`'s template in `completion/complete` (say, customer
   * names for a `search`). Registered here rather than in `command()` options, which codegen
   * reads as literals: a completer is code, and needs the app's database. Throws for a variable
   * the command's template does not have.
   */
  complete(target: Command, variable: string, completer: Completer): this {
    const name = this.nameOf(target);
    const template = this.generated?.templates[name];
    if (this.generated && !template)
      throw new Error(
        `livecmd: ${name} has no resource template, so it has no variable to complete; only a template's variables are completed`,
      );
    if (template && !template.variables.some((candidate) => candidate.name === variable)) {
      const known = template.variables.map((candidate) => candidate.name).join(", ");
      throw new Error(
        `livecmd: ${template.uriTemplate} has no variable "${variable}"; its variables are ${known}`,
      );
    }
    let byVariable = this.#completers.get(name);
    if (!byVariable) this.#completers.set(name, (byVariable = new Map()));
    byVariable.set(variable, completer);
    return this;
  }

  hasCompleter(name: string, variable: string): boolean {
    return this.#completers.get(name)?.has(variable) ?? false;
  }

  /** Runs the completer of `variable` of command `name` for the agent, through the middleware; [] when there is none. */
  async completions(
    name: string,
    variable: string,
    prefix: string,
    filled: Readonly<Record<string, string>>,
    auth?: AuthInfo,
  ): Promise<readonly string[]> {
    const completer = this.#completers.get(name)?.get(variable);
    if (!completer) return [];
    const context = { arguments: filled };
    const invocation = this.#invocation(name, [prefix, context], { origin: Origin.Agent, auth });
    return (await this.#throughMiddleware(invocation, async () =>
      completer(invocation, prefix, context),
    )) as readonly string[];
  }

  /**
   * The field errors of `args` for command `name`, checked against its published `inputSchema`
   * (types, constraints, formats); none when the app has no catalog entry for it.
   */
  argumentErrors(name: string, args: readonly unknown[]): FieldError[] {
    const entry = this.generated?.catalog.commands.find((candidate) => candidate.name === name);
    return entry
      ? argumentValidator().validate(entry.inputSchema, argumentsObject(entry.arguments, args))
      : [];
  }

  /**
   * Runs a command through the middleware, as `origin`. The app's own runs are validated here,
   * and refused with `InvalidArguments`; an agent's were validated by the server before its
   * rate limit counted them.
   */
  async run(name: string, args: readonly unknown[], options: RunOptions): Promise<unknown> {
    const command = this.commands.get(name);
    if (!command) throw new Error(`livecmd: app "${this.name}" has no command "${name}"`);
    if (options.origin === Origin.App) {
      const errors = this.argumentErrors(name, args);
      if (errors.length > 0) throw new InvalidArguments(errors);
    }
    const invocation = this.#invocation(name, args, options);
    return this.#throughMiddleware(invocation, async () => command.handler(invocation, ...args));
  }

  #throughMiddleware(invocation: Invocation, final: () => Promise<unknown>): Promise<unknown> {
    const chain = this.#middleware.reduceRight<() => Promise<unknown>>(
      (next, middleware) => () => middleware(invocation, next),
      final,
    );
    return chain();
  }

  #invocation(
    name: string,
    args: readonly unknown[],
    { origin, observer, auth, onLink, signal, onProgress }: RunOptions,
  ): Invocation {
    const app = this;
    let db: Database | undefined;
    return {
      origin,
      command: name,
      get auth() {
        observer?.sawPrincipal();
        return auth;
      },
      args,
      get db() {
        db ??=
          observer || signal
            ? app.db.observedBy({
                ...(observer && { read: (reads) => observer.read(reads) }),
                ...(signal && { signal }),
              })
            : app.db;
        return db;
      },
      changed: (table) => app.changed(table),
      link: (uri) => onLink?.(uri),
      signal: signal ?? NEVER_CANCELLED,
      progress: (done, total, message) => onProgress?.(done, total, message),
    };
  }

  #changeGrants(commands: Command[], change: (name: string) => unknown): void {
    const before = [...this.#granted].sort().join("\n");
    for (const command of commands) change(this.nameOf(command));
    if ([...this.#granted].sort().join("\n") !== before)
      for (const listener of this.#grantListeners) listener();
  }
}

/** `agent.scopes`, checked: every key names one of the app's commands, every scope is a non-empty string. */
function checkedScopes(
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

export function defineApp(definition: AppDefinition): App {
  return new App(definition);
}

function nameCommands(commands: Record<string, Command>): Map<string, Command> {
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

function checkGenerated(
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

export { Origin };
