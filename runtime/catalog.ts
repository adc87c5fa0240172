import type { CommandTemplate, JsonSchema } from "./uri/template.ts";

/** `generated/catalog.json`: what the MCP server lists, exactly as on the wire, plus every command's plan. */
export interface Catalog {
  /** The generated-file notice (JSON has no comments). */
  $comment?: string;
  /** The app's name, which is its URI scheme. */
  app: string;
  /** Plain resources of granted commands (`resources/list`), in name order. */
  resources: ResourceEntry[];
  /** Templates of granted commands (`resources/templates/list`), in name order. */
  resourceTemplates: ResourceTemplateEntry[];
  /** Granted commands (`tools/list`), in name order. */
  tools: ToolEntry[];
  /** Every command, granted or not, in name order. */
  commands: CommandEntry[];
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
