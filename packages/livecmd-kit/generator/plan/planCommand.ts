import {
  annotationsOf,
  isStruct,
  toolArguments,
  type ArgumentShape,
  viewUri,
  type CommandEntry,
} from "livecmd/internal";
import type { CommandDecl, JsonSchema } from "../model.ts";
import { planVariables, type PlannedVariable } from "./planVariables.ts";

/** How one handler argument is rebuilt from the variables. */
export type ArgumentPlan =
  | { kind: "variable"; name: string }
  /** A struct's fields; `orUndefined` when the whole struct may be left out. */
  | { kind: "struct"; fields: string[]; orUndefined: boolean };

/** Everything the renderers need to emit one template's parser and URI helper. */
export interface TemplatePlan {
  name: string;
  description: string;
  /** `app://orders_between`: the fixed part every expanded URI starts with. */
  base: string;
  uriTemplate: string;
  /** Required variables (path segments, in order), then optional ones (the query, in order). */
  path: PlannedVariable[];
  query: PlannedVariable[];
  args: ArgumentPlan[];
  /** What reading the template returns: the command's result schema. */
  result: JsonSchema;
}

export interface CommandPlan {
  entry: CommandEntry;
  template: TemplatePlan | undefined;
}

export function planCommand(command: CommandDecl, scheme: string): CommandPlan {
  const { inputSchema, shape } = toolArguments(command.params);
  const base = `${scheme}://${command.name}`;
  const eligible = command.live && !command.confirm;
  const variables = eligible ? planVariables(command.name, command.params) : undefined;
  const template =
    variables?.ok && variables.variables.length > 0
      ? planTemplate(command, base, variables.variables, shape)
      : undefined;
  const allOptional =
    variables?.ok === true && variables.variables.every((variable) => !variable.required);
  return {
    entry: {
      name: command.name,
      live: command.live,
      confirm: command.confirm,
      granted: command.granted,
      resource: allOptional ? base : null,
      template: template?.uriTemplate ?? null,
      reason: reasonForNoTemplate(command, variables),
      ...(command.title !== undefined && { title: command.title }),
      annotations: annotationsOf({
        live: command.live,
        confirm: command.confirm,
        ...(command.title !== undefined && { title: command.title }),
        stated: command.annotations,
      }),
      description: command.description,
      mimeType: command.mimeType,
      inputSchema,
      arguments: shape,
      resultSchema: command.result,
      ...(command.view && {
        view: {
          uri: viewUri(scheme, command.name),
          ...(command.view.kind === "html" && { html: command.view.html }),
        },
      }),
    },
    template,
  };
}

function reasonForNoTemplate(
  command: CommandDecl,
  variables: ReturnType<typeof planVariables> | undefined,
): string | null {
  if (!command.live) return null;
  if (command.confirm)
    return `${command.name} needs confirmation (confirm: true), so it is never a resource`;
  return variables?.ok === false ? variables.reason : null;
}

function planTemplate(
  command: CommandDecl,
  base: string,
  variables: PlannedVariable[],
  shape: ArgumentShape,
): TemplatePlan {
  const path = variables.filter((variable) => variable.required);
  const query = variables.filter((variable) => !variable.required);
  const pathPart = path.map((variable) => `/{${variable.name}}`).join("");
  const queryPart =
    query.length > 0 ? `{?${query.map((variable) => variable.name).join(",")}}` : "";
  return {
    name: command.name,
    description: command.description,
    base,
    uriTemplate: base + pathPart + queryPart,
    path,
    query,
    result: command.result,
    args: command.params.map((param, index): ArgumentPlan => {
      if (!isStruct(param.schema)) return { kind: "variable", name: param.name };
      const fields = variables
        .filter((variable) => variable.param === index)
        .map((variable) => variable.name);
      return { kind: "struct", fields, orUndefined: param.optional && shape.kind === "positional" };
    }),
  };
}
