import { builders } from "prettier/doc";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { importDoc } from "./layout/importDoc.ts";
import { fitsOnLine, isPlainText, layOut } from "./layout/layOut.ts";
import { assignmentDoc } from "./layout/literalDoc.ts";
import { tidyLines } from "./layout/tidyLines.ts";
import { compileModuleTemplate, type ModuleContext } from "./moduleTemplate.ts";
import { ifStatement } from "./layout/ifStatement.ts";

const { group, indent, line, softline, ifBreak } = builders;

const urisModule = compileModuleTemplate("uris.ts.hbs");

/** `generated/uris.ts`: typed URI builders, importable anywhere (no Node, no server runtime). */
export function renderUrisModule({ app, header, templates }: ModuleContext, types: string): string {
  const hasInteger = templates.some((template) =>
    [...template.path, ...template.query].some((variable) => variable.kind === "integer"),
  );
  const helpers = templates.length > 0 ? ["pathSegment", ...(hasInteger ? ["type Int"] : [])] : [];
  return tidyLines(
    urisModule({
      header,
      app,
      imports:
        helpers.length > 0
          ? layOut(importDoc(helpers, "livecmd/uri"), { indent: 0, column: 0 })
          : "",
      types,
      templates: templates.map((template) => ({
        name: template.name,
        description: commentSafe(template.description),
        uriTemplate: commentSafe(template.uriTemplate),
        ...uriBuilderParts(template),
      })),
    }),
  );
}

/**
 * The `parameter` and `expression` of `  {{name}}: ({{parameter}}): string => {{expression}},`.
 * A template with a query gets a block body, one line per query variable. A path-only one gets a
 * template literal, which moves to its own line (indented 4) when the line is too long; the
 * parameter breaks only when even `  name: (vars: T): string =>` is too long, and names that
 * long, and wide characters, go through the general printer.
 */
function uriBuilderParts(template: TemplatePlan): { parameter: string; expression: string } {
  const parameter = `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`;
  if (template.query.length > 0) {
    // The block's opening line breaks, as prettier breaks it, in the parameter list.
    const opening = `  ${template.name}: (${parameter}): string => {`;
    return {
      parameter: fitsOnLine(opening, 0) ? parameter : `\n    ${parameter},\n  `,
      expression: queryBody(template),
    };
  }
  const signature = `  ${template.name}: (${parameter}): string =>`;
  if (!fitsOnLine(signature, 0) || !isPlainText(template.base))
    return uriBuilderPartsByPrinter(template, parameter);
  const body = expandHead(template) + "`";
  return {
    parameter,
    expression: fitsOnLine(body, signature.length + 1, ",") ? body : `\n    ${body}`,
  };
}

function uriBuilderPartsByPrinter(
  template: TemplatePlan,
  parameter: string,
): { parameter: string; expression: string } {
  const signature = group([
    "(",
    indent([softline, parameter]),
    ifBreak(","),
    softline,
    "): string",
  ]);
  const arrow = group([group(signature), " =>", group(indent([line, expandHead(template) + "`"]))]);
  const printed = layOut(assignmentDoc(template.name, arrow, false), {
    indent: 2,
    column: 2,
    after: ",",
  });
  const open = printed.indexOf("(");
  const close = printed.indexOf("): string =>");
  return {
    parameter: printed.slice(open + 1, close),
    expression: printed.slice(close + "): string =>".length).replace(/^ /, ""),
  };
}

/** The block body of a builder with a query: each defined variable adds `name=value`, after a `&` unless it is the first. */
function queryBody(template: TemplatePlan): string {
  const params = template.query.map(({ name }) =>
    ifStatement(
      4,
      `vars.${name} != null`,
      `query += \`\${query && "&"}${name}=\${pathSegment(vars.${name})}\`;`,
    ),
  );
  return [
    "{",
    '    let query = "";',
    ...params.map((line) => `    ${line}`),
    `    return ${expandHead(template)}\${query && \`?\${query}\`}\`;`,
    "  }",
  ].join("\n");
}

function expandHead(template: TemplatePlan): string {
  return `\`${template.base}${template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("")}`;
}

function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}
