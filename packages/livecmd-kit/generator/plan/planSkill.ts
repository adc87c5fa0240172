import {
  isReadable,
  MAX_WATCH_WAIT_MS,
  type ArgumentShape,
  type CommandEntry,
} from "livecmd/internal";
import type { AppDecl, JsonSchema } from "../model.ts";
import type { CatalogPlan } from "./buildCatalog.ts";
import { exampleUris } from "./exampleValues.ts";
import type { TemplatePlan } from "./planCommand.ts";
import type { PlannedVariable } from "./planVariables.ts";
import type { ScalarKind } from "./scalar.ts";
import { reused, type Reuse } from "../reuse.ts";

/** What the agent skill tells of the app: everything the render stage writes it from. */
export interface SkillPlan {
  /** The skill's name (its folder): the app's name as Agent Skills names go. */
  name: string;
  /** The app's name: its URI scheme. */
  app: string;
  /** The front matter's `description`: what the skill is for, at most 1024 characters. */
  description: string;
  /** What the app is, as `defineApp({ description })` says. */
  about?: string;
  /** Each granted command an agent can read, in name order. */
  readable: ReadableSkill[];
  /** Each granted command that is a tool only, in name order, and why. */
  toolOnly: ToolOnlySkill[];
  /** The watch tool's name, when the app serves one and something can be read. */
  watchTool: string | null;
  /** The longest one call of the watch tool waits, in seconds. */
  waitSeconds: number;
}

export interface ReadableSkill {
  command: string;
  title?: string;
  description: string;
  /** Its template, else its plain resource. */
  uri: string;
  /** Its plain resource, when it has a template too (all its variables are optional). */
  resource?: string;
  /** Its reference page, from the skill's folder. */
  reference: string;
  variables: VariableSkill[];
  /** Worked examples: a URI, and the same values as the tool's arguments. */
  examples: { uri: string; arguments: Record<string, unknown> }[];
  /** What reading it returns (the command's result schema). */
  result: JsonSchema;
}

export interface VariableSkill {
  name: string;
  required: boolean;
  kind: ScalarKind;
  /** Its schema as published (constraints, format, constants, description). */
  schema: JsonSchema;
}

export interface ToolOnlySkill {
  command: string;
  title?: string;
  description: string;
  /** Why it is a tool only, in one sentence. */
  why: string;
  /** Its `tools/call` arguments, in the order its input schema lists them. */
  arguments: ToolArgumentSkill[];
}

/** One argument of a tool, as the skill names it: its name, its JSON type in words, whether it must be given. */
export interface ToolArgumentSkill {
  name: string;
  type: string;
  required: boolean;
}

/** The longest `description` Agent Skills (and SEP-2640's hosts) take. */
const MAX_DESCRIPTION = 1024;

/**
 * The skill of `app` as its catalog plans it: what each granted command offers an agent (a URI
 * to read and watch, with its variables and worked examples, or a tool and why only that), and
 * how to watch.
 */
export function planSkill(app: AppDecl, plan: CatalogPlan, reuse?: Reuse): SkillPlan {
  const templates = new Map(plan.templates.map((template) => [template.name, template]));
  const granted = plan.catalog.commands.filter((entry) => entry.granted);
  const readable = granted
    .filter(isReadable)
    .map((entry) =>
      reused(reuse, entry, "skill", () => readableSkill(entry, templates.get(entry.name))),
    );
  const watchTool = readable.length > 0 ? (plan.catalog.watchTool?.name ?? null) : null;
  return {
    name: skillName(app.name),
    app: app.name,
    description: skillDescription(app, readable, watchTool),
    ...(app.description !== undefined && { about: app.description }),
    readable,
    toolOnly: granted.filter((entry) => !isReadable(entry)).map(toolOnlySkill),
    watchTool,
    waitSeconds: MAX_WATCH_WAIT_MS / 1000,
  };
}

/** The app's name as a skill's: lowercase letters, digits and single hyphens, at most 64. */
export function skillName(app: string): string {
  return app
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 64)
    .replace(/^-+|-+$/g, "");
}

function skillDescription(
  app: AppDecl,
  readable: readonly ReadableSkill[],
  watchTool: string | null,
): string {
  const first = readable[0];
  const use = first
    ? `Use it to read the data of the MCP server "${app.name}" by URI (${readable.length === 1 ? "its resource" : `${readable.length} resources and templates`}, such as ${first.uri}) and to keep an eye on it as it changes${watchTool ? `, with resource subscriptions or the ${watchTool} tool` : ""}.`
    : `Use it to call the tools of the MCP server "${app.name}".`;
  const about = app.description === undefined ? "" : `${app.description} `;
  const room = MAX_DESCRIPTION - use.length;
  return `${about.length > room ? `${about.slice(0, room - 2).trimEnd()}… ` : about}${use}`;
}

function readableSkill(entry: CommandEntry, template: TemplatePlan | undefined): ReadableSkill {
  const variables = template ? [...template.path, ...template.query] : [];
  return {
    command: entry.name,
    ...(entry.title !== undefined && { title: entry.title }),
    description: entry.description,
    uri: entry.template ?? entry.resource!,
    ...(entry.template !== null && entry.resource !== null && { resource: entry.resource }),
    reference: `references/${entry.name}.md`,
    variables: variables.map(variableSkill),
    examples: template
      ? exampleUris(template).map(({ uri, values }) => ({
          uri,
          arguments: toolArguments(template, entry.arguments, values),
        }))
      : [{ uri: entry.resource!, arguments: {} }],
    result: entry.resultSchema,
  };
}

/**
 * The `tools/call` arguments of the variable values `values`: the fields of the one struct as
 * they are, or each parameter by name, a struct's fields back in their object.
 */
function toolArguments(
  template: TemplatePlan,
  shape: ArgumentShape,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (shape.kind === "object") return { ...values };
  return Object.fromEntries(
    template.args.flatMap((argument, index): [string, unknown][] => {
      const name = shape.names[index]!;
      if (argument.kind === "variable")
        return argument.name in values ? [[name, values[argument.name]]] : [];
      const fields = argument.fields.filter((field) => field in values);
      return fields.length === 0
        ? []
        : [[name, Object.fromEntries(fields.map((field) => [field, values[field]]))]];
    }),
  );
}

function variableSkill({ name, required, kind, schema }: PlannedVariable): VariableSkill {
  return { name, required, kind, schema };
}

function toolOnlySkill(entry: CommandEntry): ToolOnlySkill {
  return {
    command: entry.name,
    ...(entry.title !== undefined && { title: entry.title }),
    description: entry.description,
    why: whyToolOnly(entry),
    arguments: argumentSkills(entry.inputSchema),
  };
}

function argumentSkills(schema: JsonSchema): ToolArgumentSkill[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    type: jsonTypeInWords(property),
    required: required.has(name),
  }));
}

/** A JSON Schema's type as a person says it: `email string`, `integer list`, `one of "a", "b"`. */
function jsonTypeInWords(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(", ")}`;
  if (schema.type === "array") return `${jsonTypeInWords((schema.items ?? {}) as JsonSchema)} list`;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) return union.map(jsonTypeInWords).join(" or ");
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  if (typeof schema.type !== "string") return "any JSON value";
  return typeof schema.format === "string" ? `${schema.format} ${schema.type}` : schema.type;
}

function whyToolOnly(entry: CommandEntry): string {
  if (entry.confirm)
    return entry.live
      ? `It needs a person's confirmation, so it is never a resource: the host asks them when you call it.`
      : `It changes data and needs a person's confirmation: the host asks them when you call it.`;
  if (!entry.live) return "It changes data: a write is a tool, never a resource to read or watch.";
  return entry.reason === null
    ? "It has no resource template."
    : `${entry.reason[0]!.toUpperCase()}${entry.reason.slice(1)}.`;
}
