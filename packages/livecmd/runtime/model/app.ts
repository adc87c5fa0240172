import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Command } from "./command.ts";
import type { Context, Origin } from "./context.ts";
import type { AppDefinition } from "./appDefinition.ts";
import { AppEngine } from "./appEngine.ts";
import { attachEngine } from "./attachedEngine.ts";
import type { AppDatabase } from "../db/database.ts";
import type { TableChange } from "../db/keyedAccess.ts";

export type { AppDefinition } from "./appDefinition.ts";

/** What middleware sees: the handler's context plus the arguments it will get. */
export interface Invocation extends Context {
  readonly args: readonly unknown[];
}

export type Middleware = (invocation: Invocation, next: () => Promise<unknown>) => Promise<unknown>;

export interface RunOptions {
  origin: Origin;
  /** The principal an agent's run is for, when the server authenticates (see `Context.auth`). */
  auth?: AuthInfo | undefined;
  /** Told each URI the run links to (`ctx.link`); links go nowhere when absent. */
  onLink?: (uri: string) => void;
  /** The run's cancellation (`ctx.signal`); one that never fires when absent. */
  signal?: AbortSignal;
  /** Told `ctx.progress(...)`; progress goes nowhere when absent. */
  onProgress?: (done: number, total?: number, message?: string) => void;
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

/**
 * What `defineApp` returns: what the app's own code calls. The server drives the app through
 * its engine (grant checks, completions, runs observed for live reads), which this type leaves
 * out so that an adopter's editor offers only the contract.
 */
export class App {
  /** The URI scheme of the app's resources, and the MCP server's name. */
  readonly name: string;
  /** The MCP server's version (`serverInfo.version`), when `defineApp` gave one. */
  readonly version: string | undefined;
  /** What the app is (`serverInfo.description`), when `defineApp` gave it. */
  readonly description: string | undefined;
  /** Commands by name, in code-unit order of name. */
  readonly commands: ReadonlyMap<string, Command>;
  readonly #engine: AppEngine;

  constructor(definition: AppDefinition) {
    this.#engine = new AppEngine(definition);
    this.name = this.#engine.name;
    this.version = this.#engine.version;
    this.description = this.#engine.description;
    this.commands = this.#engine.commands;
    attachEngine(this, this.#engine);
  }

  /** Grants commands to the agent at runtime; connected clients are told the lists changed. */
  grant(...commands: Command[]): void {
    this.#engine.grant(...commands);
  }

  revoke(...commands: Command[]): void {
    this.#engine.revoke(...commands);
  }

  use(middleware: Middleware): this {
    this.#engine.use(middleware);
    return this;
  }

  /**
   * Offers values for `variable` of `command`'s template in `completion/complete` (say, customer
   * names for a `search`). Registered here rather than in `command()` options, which codegen
   * reads as literals: a completer is code, and needs the app's database. Throws for a variable
   * the command's template does not have.
   */
  complete(target: Command, variable: string, completer: Completer): this {
    this.#engine.complete(target, variable, completer);
    return this;
  }

  /** The app's database; writes through it, by commands or by the app's own code, are seen live. */
  get db(): AppDatabase {
    return this.#engine.db;
  }

  /** Reports tables changed outside the database (or by SQL the runtime cannot see): any of their rows. */
  changed(...tables: string[]): void {
    this.#engine.changed(...tables);
  }

  /**
   * Runs a command through the middleware, as `origin`. The app's own runs are validated against
   * the command's published `inputSchema`, and refused with `InvalidArguments`.
   */
  run(name: string, args: readonly unknown[], options: RunOptions): Promise<unknown> {
    return this.#engine.run(name, args, options);
  }

  /**
   * Opens the app's database, if it has one (on PostgreSQL: connected, set up, the change feed
   * installed and listened to); rejects with why it cannot. `livecmd serve` waits for this
   * before it says it is serving.
   */
  ready(): Promise<void> {
    return this.#engine.ready();
  }

  /** Closes the app's database, if it was opened (its connections, on PostgreSQL its change feed). */
  close(): Promise<void> {
    return this.#engine.close();
  }
}

export function defineApp(definition: AppDefinition): App {
  return new App(definition);
}
