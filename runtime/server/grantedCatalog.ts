import type { App } from "../app.ts";
import type {
  CommandEntry,
  Generated,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from "../catalog.ts";
import type { CommandTemplate } from "../uri/template.ts";

/**
 * The catalog as the agent may see it right now: `catalog.json` filtered by the app's current
 * grant. Entries of commands granted at build time come verbatim from the catalog's listings;
 * a command granted at runtime gets its entry built from `catalog.commands`, so every listing
 * and every check follows `app.isGranted` rather than the grant the catalog was built with.
 */
export class GrantedCatalog {
  readonly #app: App;
  readonly #generated: Generated;
  readonly #commands: ReadonlyMap<string, CommandEntry>;

  constructor(app: App, generated: Generated) {
    this.#app = app;
    this.#generated = generated;
    // A stale catalog may list a command the app lost (see `catalogDrift`); it cannot be served.
    this.#commands = new Map(
      generated.catalog.commands
        .filter((entry) => app.commands.has(entry.name))
        .map((entry) => [entry.name, entry]),
    );
  }

  get scheme(): string {
    return this.#app.name;
  }

  /**
   * Whether the app can ever serve a resource: some command could be read if granted. Fixed for
   * the process, because capabilities are declared before any transport starts.
   */
  get hasReadableCommands(): boolean {
    return [...this.#commands.values()].some(isReadableShape);
  }

  /** A granted command, or undefined for an unknown or ungranted one (the two are never told apart). */
  tool(name: string): CommandEntry | undefined {
    const entry = this.#commands.get(name);
    return entry && this.#app.isGranted(name) ? entry : undefined;
  }

  /** A granted, live, unconfirmed command with a resource or template; undefined otherwise. */
  readable(name: string): CommandEntry | undefined {
    const entry = this.tool(name);
    return entry && isReadableShape(entry) ? entry : undefined;
  }

  /** The parser of a readable command's template (`templates.ts` holds every eligible command). */
  template(entry: CommandEntry): CommandTemplate | undefined {
    return entry.template === null ? undefined : this.#generated.templates[entry.name];
  }

  /** The readable command whose template string is exactly `uriTemplate`. */
  readableByTemplate(uriTemplate: string): CommandEntry | undefined {
    const entry = [...this.#commands.values()].find(
      (candidate) => candidate.template === uriTemplate,
    );
    return entry && this.readable(entry.name);
  }

  resources(): ResourceEntry[] {
    const listed = byName(this.#generated.catalog.resources);
    return this.#readableEntries()
      .filter((entry) => entry.resource !== null)
      .map((entry) => listed.get(entry.name) ?? { uri: entry.resource!, ...describe(entry) });
  }

  resourceTemplates(): ResourceTemplateEntry[] {
    const listed = byName(this.#generated.catalog.resourceTemplates);
    return this.#readableEntries()
      .filter((entry) => entry.template !== null)
      .map(
        (entry) => listed.get(entry.name) ?? { uriTemplate: entry.template!, ...describe(entry) },
      );
  }

  tools(): ToolEntry[] {
    const listed = byName(this.#generated.catalog.tools);
    return this.#sortedEntries()
      .filter((entry) => this.#app.isGranted(entry.name))
      .map((entry) => listed.get(entry.name) ?? toolOf(entry));
  }

  #readableEntries(): CommandEntry[] {
    return this.#sortedEntries().filter((entry) => this.readable(entry.name) !== undefined);
  }

  #sortedEntries(): CommandEntry[] {
    return [...this.#commands.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  }
}

function isReadableShape(entry: CommandEntry): boolean {
  return entry.live && !entry.confirm && (entry.resource !== null || entry.template !== null);
}

function byName<T extends { name: string }>(entries: readonly T[]): Map<string, T> {
  return new Map(entries.map((entry) => [entry.name, entry]));
}

function describe(entry: CommandEntry): {
  name: string;
  title?: string;
  description: string;
  mimeType: string;
} {
  return {
    name: entry.name,
    ...(entry.title !== undefined && { title: entry.title }),
    description: entry.description,
    mimeType: entry.mimeType,
  };
}

function toolOf(entry: CommandEntry): ToolEntry {
  return {
    name: entry.name,
    ...(entry.title !== undefined && { title: entry.title }),
    description: entry.description,
    inputSchema: entry.inputSchema,
  };
}
