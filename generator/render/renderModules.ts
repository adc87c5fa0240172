import { readFileSync } from "node:fs";
import Handlebars from "handlebars";
import type { PlannedVariable } from "../plan/planVariables.ts";
import type { ArgumentPlan, TemplatePlan } from "../plan/planCommand.ts";
import { literal, variablesTypeName } from "../plan/naming.ts";

export interface ModuleContext {
  app: string;
  header: string;
  templates: TemplatePlan[];
}

const compileTemplate = (file: string) =>
  Handlebars.create().compile(readFileSync(new URL(`../../templates/${file}`, import.meta.url), "utf8"), {
    noEscape: true,
    strict: true,
  });
const templatesModule = compileTemplate("templates.ts.hbs");
const urisModule = compileTemplate("uris.ts.hbs");

/** `generated/templates.ts`: a strict parser and an argument rebuild per template. */
export function renderTemplatesModule({ app, header, templates }: ModuleContext): string {
  const imports = [
    `import { ${["FieldReader", ...usedPickers(templates), "splitUri", "type CommandTemplate"].join(", ")} } from "livecmd/uri";`,
    templates.length > 0 ? `import type { ${templates.map((t) => variablesTypeName(t.name)).join(", ")} } from "./uris.js";` : "",
  ];
  return templatesModule({
    header,
    app,
    imports: imports.filter(Boolean).join("\n"),
    templates: templates.map((template) => ({
      name: template.name,
      nameLiteral: literal(template.name),
      uriTemplateLiteral: literal(template.uriTemplate),
      variablesLiteral: literal([
        ...template.path.map((variable) => ({ name: variable.name, in: "path", schema: variable.schema })),
        ...template.query.map((variable) => ({ name: variable.name, in: "query", schema: variable.schema })),
      ]),
      baseLiteral: literal(template.base),
      pathNamesLiteral: literal(template.path.map((variable) => variable.name)),
      queryNamesLiteral: literal(template.query.map((variable) => variable.name)),
      partsBinding: [template.path.length > 0 && "path", template.query.length > 0 && "query"].filter(Boolean).join(", "),
      fields: [
        ...template.path.map((variable) => ({ name: variable.name, readCall: readCall(variable, "path") })),
        ...template.query.map((variable) => ({ name: variable.name, readCall: readCall(variable, "query") })),
      ],
      argsExpression: `[${template.args.map(argumentExpression).join(", ")}]`,
      typeName: variablesTypeName(template.name),
    })),
  });
}

/** `generated/uris.ts`: typed URI builders, importable anywhere (no Node, no server runtime). */
export function renderUrisModule({ app, header, templates }: ModuleContext, types: string): string {
  const helpers = [
    templates.some((template) => template.path.length > 0) && "pathSegment",
    templates.some((template) => template.query.length > 0) && "formQuery",
  ].filter(Boolean);
  return urisModule({
    header,
    app,
    imports: helpers.length > 0 ? `import { ${helpers.join(", ")} } from "livecmd/uri";` : "",
    types,
    templates: templates.map((template) => ({
      name: template.name,
      description: commentSafe(template.description),
      uriTemplate: commentSafe(template.uriTemplate),
      parameter: `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`,
      expression: expandExpression(template),
    })),
  });
}

function readCall(variable: PlannedVariable, from: "path" | "query"): string {
  const raw = `${from}.${variable.name}`;
  const field = literal(variable.name);
  if (variable.kind === "enum") return `read.enum(${field}, ${raw}, ${literal(variable.schema.enum)})`;
  return `read.${variable.kind}(${field}, ${raw})`;
}

function argumentExpression(argument: ArgumentPlan): string {
  if (argument.kind === "variable") return `vars.${argument.name}`;
  const picker = argument.orUndefined ? "pickDefinedOrUndefined" : "pickDefined";
  return `${picker}(vars, ${literal(argument.fields)})`;
}

function usedPickers(templates: TemplatePlan[]): string[] {
  const arguments_ = templates.flatMap((template) => template.args);
  return [
    arguments_.some((argument) => argument.kind === "struct" && !argument.orUndefined) && "pickDefined",
    arguments_.some((argument) => argument.kind === "struct" && argument.orUndefined) && "pickDefinedOrUndefined",
  ].filter((name): name is string => typeof name === "string");
}

/** A template literal: the fixed base, each path value encoded, then the form query. */
function expandExpression(template: TemplatePlan): string {
  const path = template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("");
  const pairs = template.query.map((variable) => `[${literal(variable.name)}, vars.${variable.name}]`).join(", ");
  const query = template.query.length > 0 ? `\${formQuery([${pairs}])}` : "";
  return `\`${template.base}${path}${query}\``;
}

function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}
