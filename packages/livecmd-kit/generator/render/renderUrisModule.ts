import { commentSafe } from "./commentSafe.ts";
import { builders } from "prettier/doc";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { resultTypeName, variablesTypeName } from "../plan/naming.ts";
import {
  docUnit,
  indented,
  printCode,
  reusedLines,
  type CodeLine,
  type Line,
} from "./layout/code.ts";
import { ifStatement } from "./layout/ifStatement.ts";
import { importDoc } from "./layout/importDoc.ts";
import {
  fitsOnLine,
  isPlainText,
  layOut,
  TAB_WIDTH,
  type Doc,
  type Placement,
} from "./layout/layOut.ts";
import { assignmentDoc } from "./layout/literalDoc.ts";
import type { ModuleContext } from "./renderTemplatesModule.ts";
import { renderVariableTypes } from "./renderTypes.ts";
import { renderResultTypes } from "./resultTypes.ts";

const { group, indent, line, softline, ifBreak } = builders;

/**
 * `generated/uris.ts`: typed URI builders, importable anywhere (no Node, no server runtime), and
 * the variables' and results' types they name.
 */
export function renderUrisModule({ app, header, templates, reuse }: ModuleContext): string {
  const urisDoc = [
    "/**",
    ` * Builds the URIs of app "${app}"'s resource templates (RFC 6570: path values and query values`,
    " * percent-encoded, only defined query variables, in template order). Imports nothing from Node.",
    " * Each defined query variable adds `name=value` to the query, after a `&` unless it is the first.",
    " */",
  ];
  if (templates.length === 0) return printCode([header, "", ...urisDoc, "export const uris = {};"]);
  return printCode(
    [
      header,
      [docUnit(importDoc(helpers(templates), "livecmd/uri"))],
      "",
      ...renderVariableTypes(templates, reuse),
      ...renderResultTypes(templates, reuse),
      "",
      "/**",
      " * The URI builders of `uris`: each returns a `ResourceUri`, a string that also carries, in its",
      " * type, what reading it returns (`livecmd/client` reads and watches it as that type).",
      " */",
      "export interface Uris {",
      indented(
        ...templates.map((template) =>
          reusedLines(reuse, template, "signature", () => [
            `/** ${commentSafe(template.description)} \`${commentSafe(template.uriTemplate)}\` */`,
            [docUnit(signature(template))],
          ]),
        ),
      ),
      "}",
      "",
      ...urisDoc,
      "export const uris = {",
      indented(
        ...templates.map((template) =>
          reusedLines(reuse, template, "builder", () => builder(template)),
        ),
      ),
      "} as Uris;",
    ],
    reuse && { reuse, file: "uris.ts" },
  );
}

function helpers(templates: TemplatePlan[]): string[] {
  const hasInteger = templates.some((template) =>
    [...template.path, ...template.query].some((variable) => variable.kind === "integer"),
  );
  return ["pathSegment", ...(hasInteger ? ["type Int"] : []), "type ResourceUri"];
}

/** `name(vars: T): ResourceUri<R>;`, the parameter on its own line when that is too long. */
function signature(template: TemplatePlan): Doc {
  const parameter = `vars${template.path.length === 0 ? "?" : ""}: ${variablesTypeName(template.name)}`;
  return withParameter(
    `${template.name}(`,
    parameter,
    `): ResourceUri<${resultTypeName(template.name)}>;`,
  );
}

/** `open` `parameter` `close`, the parameter on a line of its own (with a comma) when too long. */
function withParameter(open: string, parameter: string, close: string): Doc {
  return group([open, indent([softline, parameter]), ifBreak(","), softline, close]);
}

function parameterOf(template: TemplatePlan): string {
  return `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`;
}

/**
 * `name: (vars: T): string => ...,`. A template with a query gets a block body, one line per
 * query variable; a path-only one a template literal.
 */
function builder(template: TemplatePlan): CodeLine[] {
  if (template.query.length === 0) return [[(placement) => pathBuilder(template, placement), ","]];
  // The block's opening line breaks, as prettier breaks it, in the parameter list.
  const opening = withParameter(`${template.name}: (`, parameterOf(template), "): string => {");
  return [[docUnit(opening)], indented(...queryBody(template)), "},"];
}

/**
 * A path-only builder: its template literal moves to its own line when the line is too long;
 * the parameter breaks only when even `name: (vars: T): string =>` is too long, and names that
 * long, and wide characters, go through the general printer.
 */
function pathBuilder(template: TemplatePlan, placement: Placement): string {
  const signature = `${template.name}: (${parameterOf(template)}): string =>`;
  if (!fitsOnLine(signature, placement.column) || !isPlainText(template.base))
    return pathBuilderByPrinter(template, placement);
  const body = expandHead(template) + "`";
  return fitsOnLine(body, placement.column + signature.length + 1, placement.after)
    ? `${signature} ${body}`
    : `${signature}\n${" ".repeat(placement.indent + TAB_WIDTH)}${body}`;
}

function pathBuilderByPrinter(template: TemplatePlan, placement: Placement): string {
  const signature = withParameter("(", parameterOf(template), "): string");
  const arrow = group([group(signature), " =>", group(indent([line, expandHead(template) + "`"]))]);
  return layOut(assignmentDoc(template.name, arrow, false), placement);
}

/** The block body: each defined variable adds `name=value`, after a `&` unless it is the first. */
function queryBody(template: TemplatePlan): Line[] {
  const params = template.query.map(({ name }) =>
    ifStatement(
      `vars.${name} != null`,
      `query += \`\${query && "&"}${name}=\${pathSegment(vars.${name})}\`;`,
    ),
  );
  return [
    `let query = "";`,
    ...params,
    `return ${expandHead(template)}\${query && \`?\${query}\`}\`;`,
  ];
}

function expandHead(template: TemplatePlan): string {
  return `\`${template.base}${template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("")}`;
}
