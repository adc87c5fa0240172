import { builders } from "prettier/doc";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { argumentsDoc } from "./layout/callDoc.ts";
import { importDoc } from "./layout/importDoc.ts";
import { fitsOnLine, isPlainText, layOut, type Doc } from "./layout/layOut.ts";
import { arrayDoc, assignmentDoc } from "./layout/literalDoc.ts";
import { printList } from "./layout/printList.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";
import { tidyLines } from "./layout/tidyLines.ts";
import { compileModuleTemplate, type ModuleContext } from "./moduleTemplate.ts";

const { group, indent, line, softline, ifBreak } = builders;

const urisModule = compileModuleTemplate("uris.ts.hbs");

/** `generated/uris.ts`: typed URI builders, importable anywhere (no Node, no server runtime). */
export function renderUrisModule({ app, header, templates }: ModuleContext, types: string): string {
  const helpers = [
    templates.some((template) => template.path.length > 0) && "pathSegment",
    templates.some((template) => template.query.length > 0) && "formQuery",
  ].filter((name): name is string => typeof name === "string");
  return tidyLines(
    urisModule({
      header,
      app,
      imports: helpers.length > 0 ? layOut(importDoc(helpers, "livecmd/uri"), { indent: 0, column: 0 }) : "",
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
 * The body moves to its own line (indented 4) when the line is too long or the body breaks; the
 * parameter breaks only when even `  name: (vars: T): string =>` is too long. Names that long,
 * and wide characters, go through the general printer.
 */
function uriBuilderParts(template: TemplatePlan): { parameter: string; expression: string } {
  const parameter = `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`;
  const signature = `  ${template.name}: (${parameter}): string =>`;
  if (!fitsOnLine(signature, 0) || !isPlainText(template.base)) return uriBuilderPartsByPrinter(template, parameter);
  const flatBody = template.query.length < 2 ? expandText(template) : undefined;
  if (flatBody !== undefined && fitsOnLine(flatBody, signature.length + 1, ",")) return { parameter, expression: flatBody };
  return { parameter, expression: `\n    ${flatBody ?? expandWithQueryList(template)}` };
}

function uriBuilderPartsByPrinter(template: TemplatePlan, parameter: string): { parameter: string; expression: string } {
  const signature = group(["(", indent([softline, parameter]), ifBreak(","), softline, "): string"]);
  const arrow = group([group(signature), " =>", group(indent([line, expandDoc(template)]))]);
  const printed = layOut(assignmentDoc(template.name, arrow, false), { indent: 2, column: 2, after: "," });
  const open = printed.indexOf("(");
  const close = printed.indexOf("): string =>");
  return { parameter: printed.slice(open + 1, close), expression: printed.slice(close + "): string =>".length).replace(/^ /, "") };
}

/**
 * A template literal: the fixed base, each path value encoded, then the form query. Prettier
 * never breaks inside `${...}` for width; only the query's list of two or more pairs, which it
 * always prints one pair a line, breaks the line.
 */
function expandDoc(template: TemplatePlan): Doc {
  if (template.query.length < 2) return expandText(template);
  return [expandHead(template), group(["${formQuery", argumentsDoc([arrayDoc(queryPairs(template).map((pair) => arrayDoc(pair)), true)], true), "}"]), "`"];
}

/** Zero or one query variable: the whole literal on one line. */
function expandText(template: TemplatePlan): string {
  const pair = queryPairs(template)[0];
  return `${expandHead(template)}${pair ? `\${formQuery([[${pair.join(", ")}]])}` : ""}\``;
}

/**
 * Two or more query variables, on the line below the arrow (indent 4): the list of pairs hugged
 * by `formQuery([` when that opening fits on the line, else the argument broken out as well.
 */
function expandWithQueryList(template: TemplatePlan): string {
  const head = `${expandHead(template)}\${formQuery(`;
  const pairs = queryPairs(template).map((pair) => arrayDoc(pair));
  const hugged = fitsOnLine(`${head}[`, 4);
  const list = printList(pairs, "[]", { indent: hugged ? 4 : 6, column: hugged ? 4 + head.length : 6 }, arrayDoc(pairs, true), true);
  return hugged ? `${head}${list})}\`` : `${head}\n      ${list},\n    )}\``;
}

function expandHead(template: TemplatePlan): string {
  return `\`${template.base}${template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("")}`;
}

function queryPairs(template: TemplatePlan): string[][] {
  return template.query.map((variable) => [stringLiteral(variable.name), `vars.${variable.name}`]);
}

function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}
