import { byCodeUnit } from "../text/byCodeUnit.ts";
import type { CommandTemplate, JsonSchema } from "../uri/template.ts";
import { templateDescription } from "./templateExamples.ts";
import { VIEW_MIME_TYPE, VIEW_RESOURCE_META, type ViewEntry } from "./viewResource.ts";

/**
 * The format of catalog.json. 2: every command once, with its schema once; the listings are
 * derived from it (`listings`). 3: each command also carries its `resultSchema`. 4: the watch
 * tool, as `tools/list` lists it (or null). A catalog of another version is refused with the fix.
 */
export const CATALOG_VERSION = 4;

/** `generated/catalog.json`: every command as codegen planned it, granted or not. */
export interface Catalog {
  /** The generated-file notice (JSON has no comments). */
  $comment?: string;
  catalogVersion: typeof CATALOG_VERSION;
  /** The app's name, which is its URI scheme. */
  app: string;
  /**
   * The watch tool exactly as `tools/list` lists it (`watchToolEntry`), to every principal that
   * may read some command; null when the app serves none (`agent.watchTool: false`).
   */
  watchTool: ToolEntry | null;
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
  /** A view's `_meta.ui` (MCP Apps): what its HTML may reach. */
  _meta?: typeof VIEW_RESOURCE_META;
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
  /** The command's `resultSchema`, when it says something (`outputSchema`). */
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** The command's live view (MCP Apps), when it has one: `{ ui: { resourceUri } }`. */
  _meta?: { ui: { resourceUri: string } };
}

/**
 * MCP's tool annotations, as livecmd derives them: hints a host uses to decide what to ask the
 * person about. Keys in this order, so the catalog's bytes do not depend on who built it.
 */
export interface ToolAnnotations {
  title?: string;
  /** A live command only reads. */
  readOnlyHint: boolean;
  /**
   * A write: true when it needs a person's confirmation, false otherwise (the app let an agent
   * run it alone, so a host need not ask either). Absent on a live command, where MCP ignores it.
   */
  destructiveHint?: boolean;
  /** As the app states it (`command({ annotations })`). */
  idempotentHint?: boolean;
  /** As the app states it (`command({ annotations })`). */
  openWorldHint?: boolean;
}

/**
 * How `tools/call` arguments become the handler's argument list: `object` passes the arguments
 * object as the single parameter; `positional` takes one property per parameter, in order, and
 * `emptyIfAbsent` names the struct parameters whose fields are all optional: left out of a call,
 * as of a URI, the handler gets `{}` (absent from catalogs written before it: none).
 */
export type ArgumentShape =
  { kind: "object" } | { kind: "positional"; names: string[]; emptyIfAbsent?: string[] };

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
  /** The tool's annotations (`annotationsOf`); absent only in a catalog written before them. */
  annotations?: ToolAnnotations;
  description: string;
  mimeType: string;
  inputSchema: JsonSchema;
  arguments: ArgumentShape;
  /**
   * What the command returns, as JSON Schema: the tool's `outputSchema` and the result type of
   * the command's template. `{}` when the return type says nothing (`unknown`, `any`).
   */
  resultSchema: JsonSchema;
  /**
   * Its live view (`command({ view })`), an MCP Apps `ui://` resource; absent when it has none
   * (and in catalogs written before views).
   */
  view?: ViewEntry;
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
 * The listings of the commands `isGranted` lets through, in the order of `commands`, and the
 * watch tool (in name order among the tools) when one of them can be read: the one place a
 * listing entry is made, for the server (with the grant as it is now) and for codegen and
 * `livecmd inspect` (with the grant the app is defined with).
 */
export function listings(
  commands: readonly CommandEntry[],
  isGranted: (entry: CommandEntry) => boolean,
  watchTool: ToolEntry | null,
): Listings {
  const granted = commands.filter(isGranted);
  const readable = granted.filter(isReadable);
  const tools = granted.map(toolEntry);
  if (watchTool && readable.length > 0) {
    const after = tools.findIndex((tool) => byCodeUnit(tool.name, watchTool.name) > 0);
    tools.splice(after === -1 ? tools.length : after, 0, watchTool);
  }
  return {
    resources: [
      ...readable.flatMap((entry) =>
        entry.resource === null ? [] : [{ uri: entry.resource, ...described(entry) }],
      ),
      ...readable.flatMap(viewResourceEntry),
    ],
    resourceTemplates: readable.flatMap((entry) =>
      entry.template === null
        ? []
        : [
            {
              uriTemplate: entry.template,
              ...described(entry),
              description: templateDescription(entry),
            },
          ],
    ),
    tools,
  };
}

function toolEntry(entry: CommandEntry): ToolEntry {
  const outputSchema = outputSchemaOf(entry);
  const view = isReadable(entry) ? entry.view : undefined;
  return {
    name: entry.name,
    ...titled(entry),
    description: entry.description,
    inputSchema: entry.inputSchema,
    ...(outputSchema && { outputSchema }),
    ...(entry.annotations && { annotations: entry.annotations }),
    ...(view && { _meta: { ui: { resourceUri: view.uri } } }),
  };
}

/**
 * The listing of a readable command's view, after the app's own resources: hosts of the MCP Apps
 * extension read it ahead of the tool's first call (to prefetch it and check its `csp`).
 */
function viewResourceEntry(entry: CommandEntry): ResourceEntry[] {
  if (!entry.view) return [];
  return [
    {
      uri: entry.view.uri,
      name: `${entry.name}_view`,
      title: `${entry.title ?? entry.name} (live view)`,
      description: `Shows what ${entry.name} returns for the URI a call of it read, and keeps it current as the data changes (an MCP Apps view).`,
      mimeType: VIEW_MIME_TYPE,
      _meta: VIEW_RESOURCE_META,
    },
  ];
}

/**
 * A command's tool annotations, from what codegen knows of it: `live` only reads, `confirm` is
 * destructive, any other write is not (the app lets an agent run it without a person), and the
 * hints the app states itself. The one place they are derived, for codegen and for the check
 * that the app still matches its catalog.
 */
export function annotationsOf(command: {
  live: boolean;
  confirm: boolean;
  title?: string;
  stated?: { idempotentHint?: boolean; openWorldHint?: boolean };
}): ToolAnnotations {
  const { stated = {} } = command;
  return {
    ...(command.title !== undefined && { title: command.title }),
    readOnlyHint: command.live,
    ...(!command.live && { destructiveHint: command.confirm }),
    ...(stated.idempotentHint !== undefined && { idempotentHint: stated.idempotentHint }),
    ...(stated.openWorldHint !== undefined && { openWorldHint: stated.openWorldHint }),
  };
}

/**
 * The tool's `outputSchema`: the result schema as it is, whatever its root. 2026-07-28 takes any
 * root; on the 2025 era, whose wire needs `type: "object"`, the SDK's codec publishes a
 * non-object root as `{ result: <schema> }` and wraps `structuredContent` to match (SEP-2106).
 * A result schema that says nothing (`{}`, from `unknown` or `any`) publishes none, and such a
 * tool returns no `structuredContent`: a schema that admits anything tells a host nothing.
 */
export function outputSchemaOf(entry: CommandEntry): JsonSchema | undefined {
  return Object.keys(entry.resultSchema).length === 0 ? undefined : entry.resultSchema;
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
