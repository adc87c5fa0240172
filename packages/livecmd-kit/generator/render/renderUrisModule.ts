import { commentSafe } from "./commentSafe.ts";
import { builders } from "prettier/doc";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { resultTypeName, variablesTypeName } from "../plan/naming.ts";
import { importDoc } from "./layout/importDoc.ts";
import { ifStatement } from "./layout/ifStatement.ts";
import { fitsOnLine, isPlainText, layOut, TAB_WIDTH, type Placement } from "./layout/layOut.ts";
import { assignmentDoc } from "./layout/literalDoc.ts";
import { compileModuleTemplate, type ModuleContext } from "./moduleTemplate.ts";

const { group, indent, line, softline, ifBreak } = builders;

const urisModule = compileModuleTemplate<object>("uris.ts.hbs");

/** `generated/uris.ts`: typed URI builders, importable anywhere (no Node, no server runtime). */
export function renderUrisModule({ app, header, templates }: ModuleContext, types: string): string {
  const hasInteger = templates.some((template) =>
    [...template.path, ...template.query].some((variable) => variable.kind === "integer"),
  );
  const helpers =
    templates.length > 0
      ? ["pathSegment", ...(hasInteger ? ["type Int"] : []), "type ResourceUri"]
      : [];
  return urisModule.render({
    header,
    imports:
      helpers.length > 0
        ? layOut(importDoc(helpers, "livecmd/uri"), urisModule.placement("imports"))
        : "",
    // The interfaces end their last line; the template puts the blank line after them.
    types: types.trimEnd(),
    buildersDoc: [
      "/**",
      " * The URI builders of `uris`: each returns a `ResourceUri`, a string that also carries, in its",
      " * type, what reading it returns (`livecmd/client` reads and watches it as that type).",
      " */",
    ].join("\n"),
    urisDoc: [
      "/**",
      ` * Builds the URIs of app "${app}"'s resource templates (RFC 6570: path values and query values`,
      " * percent-encoded, only defined query variables, in template order). Imports nothing from Node.",
      " * Each defined query variable adds `name=value` to the query, after a `&` unless it is the first.",
      " */",
    ].join("\n"),
    templates: templates.map((template) => ({
      builderDoc: `/** ${commentSafe(template.description)} \`${commentSafe(template.uriTemplate)}\` */`,
      signature: signature(template, urisModule.placement("signature")),
      builder: builder(template, urisModule.placement("builder")),
    })),
  });
}

/** `name(vars: T): ResourceUri<R>;`, the parameter on its own line when that is too long. */
function signature(template: TemplatePlan, placement: Placement): string {
  const parameter = `vars${template.path.length === 0 ? "?" : ""}: ${variablesTypeName(template.name)}`;
  const returns = `): ResourceUri<${resultTypeName(template.name)}>;`;
  return layOut(
    group([`${template.name}(`, indent([softline, parameter]), ifBreak(","), softline, returns]),
    placement,
  );
}

/**
 * `name: (vars: T): string => ...`. A template with a query gets a block body, one line per
 * query variable. A path-only one gets a template literal, which moves to its own line when the
 * line is too long; the parameter breaks only when even `name: (vars: T): string =>` is too
 * long, and names that long, and wide characters, go through the general printer.
 */
function builder(template: TemplatePlan, placement: Placement): string {
  const parameter = `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`;
  const pad = " ".repeat(placement.indent);
  const inner = " ".repeat(placement.indent + TAB_WIDTH);
  if (template.query.length > 0) {
    // The block's opening line breaks, as prettier breaks it, in the parameter list.
    const opening = `${template.name}: (${parameter}): string => {`;
    const head = fitsOnLine(opening, placement.column)
      ? opening
      : `${template.name}: (\n${inner}${parameter},\n${pad}): string => {`;
    return `${head}\n${queryBody(template, placement.indent + TAB_WIDTH)}\n${pad}}`;
  }
  const signature = `${template.name}: (${parameter}): string =>`;
  if (!fitsOnLine(signature, placement.column) || !isPlainText(template.base))
    return builderByPrinter(template, parameter, placement);
  const body = expandHead(template) + "`";
  return fitsOnLine(body, placement.column + signature.length + 1, placement.after)
    ? `${signature} ${body}`
    : `${signature}\n${inner}${body}`;
}

function builderByPrinter(template: TemplatePlan, parameter: string, placement: Placement): string {
  const signature = group([
    "(",
    indent([softline, parameter]),
    ifBreak(","),
    softline,
    "): string",
  ]);
  const arrow = group([group(signature), " =>", group(indent([line, expandHead(template) + "`"]))]);
  return layOut(assignmentDoc(template.name, arrow, false), placement);
}

/** The block body's lines at `bodyIndent`: each defined variable adds `name=value`, after a `&` unless it is the first. */
function queryBody(template: TemplatePlan, bodyIndent: number): string {
  const pad = " ".repeat(bodyIndent);
  const params = template.query.map(({ name }) =>
    ifStatement(
      bodyIndent,
      `vars.${name} != null`,
      `query += \`\${query && "&"}${name}=\${pathSegment(vars.${name})}\`;`,
    ),
  );
  return [
    `let query = "";`,
    ...params,
    `return ${expandHead(template)}\${query && \`?\${query}\`}\`;`,
  ]
    .map((statement) => pad + statement)
    .join("\n");
}

function expandHead(template: TemplatePlan): string {
  return `\`${template.base}${template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("")}`;
}
