import { compile, type JSONSchema } from "json-schema-to-typescript";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";

/**
 * The variables' TypeScript types, from the published schemas through json-schema-to-typescript,
 * so a wrong enum value or a missing required variable is a compile error in the caller.
 */
export async function renderVariableTypes(templates: TemplatePlan[]): Promise<string> {
  if (templates.length === 0) return "";
  const root: JSONSchema = {
    title: "TemplateVariables",
    description: "The variables of every resource template, by command name.",
    type: "object",
    additionalProperties: false,
    required: templates.map((template) => template.name),
    properties: Object.fromEntries(templates.map((template) => [template.name, variablesSchema(template)])),
  };
  return compile(root, "TemplateVariables", {
    bannerComment: "",
    format: false,
    additionalProperties: false,
    declareExternallyReferenced: true,
    strictIndexSignatures: true,
    unreachableDefinitions: false,
  });
}

function variablesSchema(template: TemplatePlan): JSONSchema {
  const variables = [...template.path, ...template.query];
  return {
    title: variablesTypeName(template.name),
    description: `The variables of \`${template.uriTemplate}\`.`,
    type: "object",
    additionalProperties: false,
    required: template.path.map((variable) => variable.name),
    properties: Object.fromEntries(variables.map((variable) => [variable.name, variable.schema as JSONSchema])),
  };
}
