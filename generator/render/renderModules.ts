import { readFileSync } from "node:fs";
import Handlebars from "handlebars";
import { builders } from "prettier/doc";
import type { PlannedVariable } from "../plan/planVariables.ts";
import type { ArgumentPlan, TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { argumentsDoc } from "./layout/callDoc.ts";
import { importDoc } from "./layout/importDoc.ts";
import { layOut, type Doc } from "./layout/layOut.ts";
import { arrayDoc, assignmentDoc, literalDoc } from "./layout/literalDoc.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";
import { tidyLines } from "./layout/tidyLines.ts";

const { group, indent, line, softline, ifBreak } = builders;

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

/*
 * Each placeholder below is laid out for where it sits in its template: the indent and column
 * numbers are those of templates/*.hbs, and the prettier oracle test fails if they drift apart.
 */

/** `generated/templates.ts`: a strict parser and an argument rebuild per template. */
export function renderTemplatesModule({ app, header, templates }: ModuleContext): string {
  const imports = [
    layOut(importDoc(["FieldReader", ...usedPickers(templates), "splitUri", "type CommandTemplate"], "livecmd/uri"), { indent: 0, column: 0 }),
    templates.length > 0 ? layOut(importDoc(templates.map((t) => variablesTypeName(t.name)), "./uris.js", true), { indent: 0, column: 0 }) : "",
  ];
  return tidyLines(
    templatesModule({
      header,
      app,
      imports: imports.filter(Boolean).join("\n"),
      templates: templates.map((template) => ({
        name: template.name,
        nameLiteral: stringLiteral(template.name),
        uriTemplateLiteral: valueAfterKey("uriTemplate", stringLiteral(template.uriTemplate), true, 4),
        variablesLiteral: valueAfterKey("variables", variablesDoc(template), false, 4),
        splitArguments: layOut(splitArgumentsDoc(template), { indent: 6, column: 6 + "const split = splitUri".length, after: ";" }),
        partsBinding: [template.path.length > 0 && "path", template.query.length > 0 && "query"].filter(Boolean).join(", "),
        fields: [
          ...template.path.map((variable) => ({ name: variable.name, readCall: valueAfterKey(variable.name, readCallDoc(variable, "path"), false, 8) })),
          ...template.query.map((variable) => ({ name: variable.name, readCall: valueAfterKey(variable.name, readCallDoc(variable, "query"), false, 8) })),
        ],
        argsExpression: layOut(arrayDoc(template.args.map(argumentDoc)), { indent: 4, column: 4 + "args: (vars) => ".length, after: "," }),
        typeName: variablesTypeName(template.name),
      })),
    }),
  );
}

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
 * What follows `key: ` in a template line `key: {{value}},` at `indent`: the property laid out
 * as a whole, since whether the value moves below its key depends on both. A value that does
 * move below starts with a newline, and the space the template leaves before it is tidied away.
 */
function valueAfterKey(key: string, value: Doc, valueIsString: boolean, indent: number): string {
  const printed = layOut(assignmentDoc(key, value, valueIsString), { indent, column: indent, after: "," });
  return printed.slice(key.length + 1).replace(/^ /, "");
}

function variablesDoc(template: TemplatePlan): Doc {
  return literalDoc([
    ...template.path.map((variable) => ({ name: variable.name, in: "path", schema: variable.schema })),
    ...template.query.map((variable) => ({ name: variable.name, in: "query", schema: variable.schema })),
  ]);
}

/** `(uri, base, pathNames, queryNames)`: two arrays last, so neither is hugged. */
function splitArgumentsDoc(template: TemplatePlan): Doc {
  const names = (variables: PlannedVariable[]) => literalDoc(variables.map((variable) => variable.name));
  return argumentsDoc(["uri", stringLiteral(template.base), names(template.path), names(template.query)], false);
}

function readCallDoc(variable: PlannedVariable, from: "path" | "query"): Doc {
  const args = [stringLiteral(variable.name), `${from}.${variable.name}`];
  if (variable.kind === "enum") return group(["read.enum", argumentsDoc([...args, literalDoc(variable.schema.enum)], true)]);
  return group([`read.${variable.kind}`, argumentsDoc(args, false)]);
}

function argumentDoc(argument: ArgumentPlan): Doc {
  if (argument.kind === "variable") return `vars.${argument.name}`;
  const picker = argument.orUndefined ? "pickDefinedOrUndefined" : "pickDefined";
  return group([picker, argumentsDoc(["vars", literalDoc(argument.fields)], true)]);
}

function usedPickers(templates: TemplatePlan[]): string[] {
  const arguments_ = templates.flatMap((template) => template.args);
  return [
    arguments_.some((argument) => argument.kind === "struct" && !argument.orUndefined) && "pickDefined",
    arguments_.some((argument) => argument.kind === "struct" && argument.orUndefined) && "pickDefinedOrUndefined",
  ].filter((name): name is string => typeof name === "string");
}

/**
 * The `parameter` and `expression` of `{{name}}: ({{parameter}}): string => {{expression}},`:
 * laid out together, since the body moves to its own line only when the whole line is too long,
 * and the parameter breaks only when even `name: (vars: T): string =>` is.
 */
function uriBuilderParts(template: TemplatePlan): { parameter: string; expression: string } {
  const parameter = `vars: ${variablesTypeName(template.name)}${template.path.length === 0 ? " = {}" : ""}`;
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
  const path = template.path.map((variable) => `/\${pathSegment(vars.${variable.name})}`).join("");
  const pairs = template.query.map((variable) => [stringLiteral(variable.name), `vars.${variable.name}`]);
  if (pairs.length === 0) return `\`${template.base}${path}\``;
  if (pairs.length === 1) return `\`${template.base}${path}\${formQuery([[${pairs[0]!.join(", ")}]])}\``;
  return [`\`${template.base}${path}`, group(["${formQuery", argumentsDoc([arrayDoc(pairs.map((pair) => arrayDoc(pair)), true)], true), "}"]), "`"];
}

function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}
