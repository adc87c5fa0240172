import { readFileSync } from "node:fs";
import Handlebars from "handlebars";
import type { PlannedVariable } from "../plan/planVariables.ts";
import type { ArgumentPlan, TemplatePlan } from "../plan/planCommand.ts";
import { literal, variablesTypeName } from "../plan/naming.ts";
import { cursorReads } from "./cursorReads.ts";
import { ifStatement } from "./statementLine.ts";

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
  const reads = templates.map(cursorReads);
  const usesCursor = reads.some((lines) => lines.length > 0);
  const runtime = ["FieldReader", ...usedPickers(templates), "splitUri", ...(usesCursor ? ["UriCursor"] : []), "type CommandTemplate"];
  const imports = templates.length === 0 ? [] : [
    `import { ${runtime.join(", ")} } from "livecmd/uri";`,
    `import type { ${templates.map((t) => variablesTypeName(t.name)).join(", ")} } from "./uris.js";`,
  ];
  return templatesModule({
    header,
    app,
    imports: imports.join("\n"),
    usesCursor,
    templates: templates.map((template, index) => ({
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
      cursorReads: reads[index],
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
  return urisModule({
    header,
    app,
    imports: templates.length > 0 ? `import { pathSegment } from "livecmd/uri";` : "",
    types,
    templates: templates.map((template) => ({
      name: template.name,
      description: commentSafe(template.description),
      uriTemplate: commentSafe(template.uriTemplate),
      parameter: `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`,
      body: expandBody(template),
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

/**
 * The builder's body: a template literal of the fixed base and each path value encoded, and
 * for a template with a query, before it, one `&name=value` per defined variable.
 */
function expandBody(template: TemplatePlan): string {
  const path = template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("");
  if (template.query.length === 0) return `\`${template.base}${path}\``;
  const params = template.query.map(({ name }) => ifStatement(4, `vars.${name} != null`, `query += \`\${query && "&"}${name}=\${pathSegment(vars.${name})}\`;`));
  return [
    "{",
    '    let query = "";',
    ...params.map((line) => `    ${line}`),
    `    return \`${template.base}${path}\${query && \`?\${query}\`}\`;`,
    "  }",
  ].join("\n");
}

function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}
