import type { AuthInfo } from "@modelcontextprotocol/server";
import type { AppEngine } from "../../model/appEngine.ts";
import { byCodeUnit } from "../../text/byCodeUnit.ts";
import {
  isReadable,
  listings,
  outputSchemaOf,
  type CommandEntry,
  type Generated,
  type Listings,
  type ToolEntry,
} from "../../model/catalog.ts";
import { watchToolEntry } from "../../model/watchTool.ts";
import type { CommandTemplate, JsonSchema } from "../../uri/template.ts";

/**
 * The catalog as the agent may see it right now: catalog.json's commands through the app's
 * current grant, so every listing and every check follows `AppEngine.mayUse` (a runtime grant or
 * revoke included) rather than the grant the catalog was built with.
 */
export class GrantedCatalog {
  readonly #engine: AppEngine;
  readonly #generated: Generated;
  /** In name order; a stale catalog may list a command the app lost (see `catalogDrift`): not served. */
  readonly #commands: ReadonlyMap<string, CommandEntry>;
  /**
   * The watch tool the app serves, as livecmd lists it (catalog.json lists the same, or drifted):
   * one object for the process, so its schema is compiled once.
   */
  readonly watchTool: ToolEntry | null;
  /** The commands that have a view, by the view's `ui://` URI. */
  readonly #views: ReadonlyMap<string, CommandEntry>;

  constructor(engine: AppEngine, generated: Generated) {
    this.#engine = engine;
    this.#generated = generated;
    this.watchTool = engine.watchTool === undefined ? null : watchToolEntry(engine.watchTool);
    const served = generated.catalog.commands.filter((entry) => engine.commands.has(entry.name));
    this.#commands = new Map(
      served.sort((a, b) => byCodeUnit(a.name, b.name)).map((entry) => [entry.name, entry]),
    );
    this.#views = new Map(served.flatMap((entry) => (entry.view ? [[entry.view.uri, entry]] : [])));
  }

  get scheme(): string {
    return this.#engine.name;
  }

  /**
   * Whether the app can ever serve a resource: some command could be read if granted. Fixed for
   * the process, because capabilities are declared before any transport starts.
   */
  get hasReadableCommands(): boolean {
    return [...this.#commands.values()].some(isReadable);
  }

  /**
   * A command `auth` may use (granted, and the principal has its scopes), or undefined for an
   * unknown, ungranted or out-of-scope one: the three are never told apart.
   */
  tool(name: string, auth: AuthInfo | undefined): CommandEntry | undefined {
    const entry = this.#commands.get(name);
    return entry && this.#engine.mayUse(name, auth) ? entry : undefined;
  }

  /** A command `auth` may use that is live, unconfirmed, with a resource or template; undefined otherwise. */
  readable(name: string, auth: AuthInfo | undefined): CommandEntry | undefined {
    const entry = this.tool(name, auth);
    return entry && isReadable(entry) ? entry : undefined;
  }

  /** The readable command whose view is `uri` (`ui://app/<command>`), for `auth`. */
  viewOf(uri: string, auth: AuthInfo | undefined): CommandEntry | undefined {
    const entry = this.#views.get(uri);
    return entry && this.readable(entry.name, auth);
  }

  /** Whether `uri` is some command's view, whoever asks: it never changes while served. */
  isView(uri: string): boolean {
    return this.#views.has(uri);
  }

  /** The parser of a readable command's template (`templates.ts` holds every eligible command). */
  template(entry: CommandEntry): CommandTemplate | undefined {
    return entry.template === null ? undefined : this.#generated.templates[entry.name];
  }

  /** The readable command whose template string is exactly `uriTemplate`. */
  readableByTemplate(uriTemplate: string, auth: AuthInfo | undefined): CommandEntry | undefined {
    const entry = [...this.#commands.values()].find(
      (candidate) => candidate.template === uriTemplate,
    );
    return entry && this.readable(entry.name, auth);
  }

  /**
   * Whether `name` is the watch tool and `auth` may call it: it may read some command now (the
   * tool is listed to exactly those principals).
   */
  isWatchTool(name: string, auth: AuthInfo | undefined): boolean {
    return (
      this.watchTool?.name === name &&
      [...this.#commands.keys()].some((command) => this.readable(command, auth) !== undefined)
    );
  }

  /** The `outputSchema` the tool is listed with, if it has one. */
  outputSchema(name: string): JsonSchema | undefined {
    if (name === this.watchTool?.name) return this.watchTool.outputSchema;
    const entry = this.#commands.get(name);
    return entry && outputSchemaOf(entry);
  }

  /** The three listings as `auth` may see them, under the grant as it is now. */
  listings(auth: AuthInfo | undefined): Listings {
    return listings(
      [...this.#commands.values()],
      (entry) => this.#engine.mayUse(entry.name, auth),
      this.watchTool,
    );
  }
}
