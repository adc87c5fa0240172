import type { ChangeInterest } from "../db/changeInterest.ts";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { ChangeListener, Completer, Invocation, Middleware, RunOptions } from "./app.ts";
import {
  checkedScopes,
  checkedWatchTool,
  checkGenerated,
  checkDefinitionShape,
  nameCommands,
  type AppDefinition,
} from "./appDefinition.ts";
import type { Generated } from "./catalog.ts";
import type { Command } from "./command.ts";
import { argumentsObject } from "./commandArguments.ts";
import { Origin } from "./context.ts";
import type { AppDatabase, Database, TableObserver } from "../db/database.ts";
import { anyRowsOf, type TableChange, type TableRead } from "../db/keyedAccess.ts";
import { openDatabase, type DatabaseSource } from "../db/open/openDatabase.ts";
import type { SessionStore, StoredSpentConfirmations } from "../db/sharedState.ts";
import { RunScope } from "../db/runScope.ts";
import type { FieldError } from "../uri/template.ts";
import { argumentValidator } from "../validation/argumentValidator.ts";
import { InvalidArguments } from "../validation/invalidArguments.ts";

/** What a live subscription learns from each run of its command. */
export interface RunObserver {
  /** The rows each statement read (by key, by filter, or whole tables). */
  read(reads: readonly TableRead[]): void;
  /** Reads told before their statement ran, narrower once it ran (`TableObserver.narrowed`). */
  narrowed?(told: readonly TableRead[], reads: readonly TableRead[]): void;
  /** Only which tables each statement reads is wanted (table-level matching): no keys, filters or lookups. */
  readonly tablesOnly?: boolean;
  /** The run (the handler or a middleware) looked at `ctx.auth`: its result may differ by principal. */
  sawPrincipal(): void;
}

/** A run the server watches: an app's run options, and who is told what it reads. */
export interface ObservedRunOptions extends RunOptions {
  /** Told what the run reads and whether it looks at its principal: what a live subscription of it depends on. */
  observer?: RunObserver;
}

/** The signal of a run nobody can cancel. */
const NEVER_CANCELLED = new AbortController().signal;

/**
 * An app as the server drives it: the grant and its scopes, the middleware chain, completers,
 * the database and its changes, runs as the agent or the app. `App` is its face to the adopter.
 */
export class AppEngine {
  readonly name: string;
  readonly version: string | undefined;
  readonly description: string | undefined;
  /** Commands by name, in code-unit order of name. */
  readonly commands: ReadonlyMap<string, Command>;
  /** The watch tool's name (`agent.watchTool`); undefined when the app serves none. */
  readonly watchTool: string | undefined;
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
  /** The runs in progress, which the statements made through the app's own handle report to. */
  readonly #runs = new RunScope();

  constructor(definition: AppDefinition) {
    checkDefinitionShape(definition);
    this.name = definition.name;
    this.version = definition.version;
    this.description = definition.description;
    this.commands = nameCommands(definition.commands);
    this.watchTool = checkedWatchTool(definition.agent.watchTool, this.commands.keys());
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

  /** Whether the app was given a database (without one, livecmd sees no write). */
  get hasDatabase(): boolean {
    return this.#openDatabase !== undefined;
  }

  /** The app's database; writes through it, by commands or by the app's own code, are seen live. */
  get db(): AppDatabase {
    if (!this.#database) {
      if (!this.#openDatabase)
        throw new Error(
          `livecmd: app "${this.name}" has no database; pass defineApp({ database })`,
        );
      this.#database = openDatabase(this.#openDatabase, {
        changed: (changes) => this.#report(changes),
        runs: this.#runs,
      });
    }
    return this.#database;
  }

  /**
   * Where the 2025-era sessions of every process serving the app's database are kept, when
   * several may serve it (PostgreSQL); undefined otherwise.
   */
  sharedSessions(): SessionStore | undefined {
    return this.#openDatabase && this.db.sharedSessions();
  }

  /**
   * Where the confirmations accepted by every process serving the app's database are recorded
   * (`AppDatabase.spentConfirmations`); undefined without a database that can keep them.
   */
  spentConfirmations(): StoredSpentConfirmations | undefined {
    return this.#openDatabase && this.db.spentConfirmations();
  }

  /**
   * Opens the app's database, if it has one (on PostgreSQL: connected, set up, the change feed
   * installed and listened to); rejects with why it cannot. `livecmd serve` waits for this
   * before it says it is serving.
   */
  async ready(): Promise<void> {
    if (this.#openDatabase) await this.db.get("SELECT 1 AS ready");
  }

  /** Why this process should not be sent requests although its database answers, if so (`AppDatabase.servingProblem`). */
  servingProblem(): string | undefined {
    return this.#openDatabase && this.db.servingProblem();
  }

  /** Resolves once every write committed so far has been reported to `onChange` listeners. */
  async changesCaughtUp(): Promise<void> {
    await this.#database?.caughtUp();
  }

  /** What routes changes to this process by what it watches, if its database has it (`AppDatabase.changeInterest`). */
  changeInterest(): ChangeInterest | undefined {
    return this.#database?.changeInterest?.();
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
    const { invocation } = this.#invocation(name, [prefix, context], {
      origin: Origin.Agent,
      auth,
    });
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
  async run(name: string, args: readonly unknown[], options: ObservedRunOptions): Promise<unknown> {
    const command = this.commands.get(name);
    if (!command) throw new Error(`livecmd: app "${this.name}" has no command "${name}"`);
    if (options.origin === Origin.App) {
      const errors = this.argumentErrors(name, args);
      if (errors.length > 0) throw new InvalidArguments(errors);
    }
    // Opened before the first run, so that the app's own handle is observed from its first statement.
    // A watched run starts once changes are heard: the app's own handle sends at once, and a
    // write between its read and the change feed's start would go unheard.
    if (this.#openDatabase && options.observer) await this.db.hearing();
    else if (this.#openDatabase) void this.db;
    const { invocation, observer } = this.#invocation(name, args, options);
    // Statements made through the app's own handle within the run report to the run too, and
    // what the run leaves open on the handle is known to be its own once it ends.
    return this.#runs.run(observer, () =>
      this.#throughMiddleware(invocation, async () => command.handler(invocation, ...args)),
    );
  }

  #throughMiddleware(invocation: Invocation, final: () => Promise<unknown>): Promise<unknown> {
    const chain = this.#middleware.reduceRight<() => Promise<unknown>>(
      (next, middleware) => () => middleware(invocation, next),
      final,
    );
    return chain();
  }

  /** A run's context, and what its statements report to. */
  #invocation(
    name: string,
    args: readonly unknown[],
    { origin, observer, auth, onLink, signal, onProgress }: ObservedRunOptions,
  ): { invocation: Invocation; observer: TableObserver } {
    const app = this;
    const tables: TableObserver = {
      command: name,
      ...(observer && { read: (reads) => observer.read(reads) }),
      ...(observer?.narrowed && {
        narrowed: (told, reads) => observer.narrowed!(told, reads),
      }),
      ...(observer?.tablesOnly && { tablesOnly: true }),
      ...(signal && { signal }),
    };
    let db: Database | undefined;
    const invocation: Invocation = {
      origin,
      command: name,
      get auth() {
        observer?.sawPrincipal();
        return auth;
      },
      args,
      get db() {
        db ??= app.db.observedBy(tables);
        return db;
      },
      changed: (table) => app.changed(table),
      link: (uri) => onLink?.(uri),
      signal: signal ?? NEVER_CANCELLED,
      progress: (done, total, message) => onProgress?.(done, total, message),
    };
    return { invocation, observer: tables };
  }

  #changeGrants(commands: Command[], change: (name: string) => unknown): void {
    const before = [...this.#granted].sort().join("\n");
    for (const command of commands) change(this.nameOf(command));
    if ([...this.#granted].sort().join("\n") !== before)
      for (const listener of this.#grantListeners) listener();
  }
}
