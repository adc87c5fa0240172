import type { CommandTemplate, JsonSchema } from "./uri/template.ts";

/**
 * The format of catalog.json. 2: every command once, with its schema once; the listings are
 * derived from it (`listings`). A catalog of another version is refused with the fix.
 */
export const CATALOG_VERSION = 2;

/** `generated/catalog.json`: every command as codegen planned it, granted or not. */
export interface Catalog {
  /** The generated-file notice (JSON has no comments). */
  $comment?: string;
  catalogVersion: typeof CATALOG_VERSION;
  /** The app's name, which is its URI scheme. */
  app: string;
  /** Every command, granted or not, in name order. */
  commands: CommandEntry[];
}

/** What `resources/list`, `resources/templates/list` and `tools/list` hold, exactly as on the wire. */
export interface Listings {
  resources: ResourceEntry[];
  resourceTemplates: ResourceTemplateEntry[];
  tools: ToolEntry[];
}

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

export interface ResourceTemplateEntry {
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

export interface ToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * How `tools/call` arguments become the handler's argument list: `object` passes the arguments
 * object as the single parameter; `positional` takes one property per parameter, in order.
 */
export type ArgumentShape = { kind: "object" } | { kind: "positional"; names: string[] };

export interface CommandEntry {
  name: string;
  live: boolean;
  confirm: boolean;
  /** Granted to the agent at build time (the runtime can grant and revoke later). */
  granted: boolean;
  /** The plain resource the command has when granted (all variables optional), else null. */
  resource: string | null;
  /** The template the command has when granted, else null. */
  template: string | null;
  /** Why a live, unconfirmed command has no template, in one sentence; null otherwise. */
  reason: string | null;
  title?: string;
  description: string;
  mimeType: string;
  inputSchema: JsonSchema;
  arguments: ArgumentShape;
}

/** The generated output an app serves: the catalog and the parsers of `generated/templates.ts`. */
export interface Generated {
  catalog: Catalog;
  templates: Readonly<Record<string, CommandTemplate<any>>>;
}

/** Live, unconfirmed, with a resource or a template: what a client could read once granted. */
export function isReadable(entry: CommandEntry): boolean {
  return entry.live && !entry.confirm && (entry.resource !== null || entry.template !== null);
}

/**
 * The listings of the commands `isGranted` lets through, in the order of `commands`: the one
 * place a listing entry is made, for the server (with the grant as it is now) and for codegen
 * and `livecmd inspect` (with the grant the app is defined with).
 */
export function listings(
  commands: readonly CommandEntry[],
  isGranted: (entry: CommandEntry) => boolean,
): Listings {
  const granted = commands.filter(isGranted);
  const readable = granted.filter(isReadable);
  return {
    resources: readable.flatMap((entry) =>
      entry.resource === null ? [] : [{ uri: entry.resource, ...described(entry) }],
    ),
    resourceTemplates: readable.flatMap((entry) =>
      entry.template === null ? [] : [{ uriTemplate: entry.template, ...described(entry) }],
    ),
    tools: granted.map((entry) => ({
      name: entry.name,
      ...titled(entry),
      description: entry.description,
      inputSchema: entry.inputSchema,
    })),
  };
}

function described(entry: CommandEntry): {
  name: string;
  title?: string;
  description: string;
  mimeType: string;
} {
  return {
    name: entry.name,
    ...titled(entry),
    description: entry.description,
    mimeType: entry.mimeType,
  };
}

function titled(entry: CommandEntry): { title?: string } {
  return entry.title === undefined ? {} : { title: entry.title };
}
