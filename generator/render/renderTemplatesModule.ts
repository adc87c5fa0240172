import { builders } from "prettier/doc";
import type { TemplateVariable } from "../../runtime/uri/template.ts";
import type { PlannedVariable } from "../plan/planVariables.ts";
import type { ArgumentPlan, TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { argumentsDoc } from "./layout/callDoc.ts";
import { importDoc } from "./layout/importDoc.ts";
import { flatText } from "./layout/flatText.ts";
import { fitsOnLine, layOut, type Doc } from "./layout/layOut.ts";
import { arrayDoc, assignmentDoc, literalDoc } from "./layout/literalDoc.ts";
import { printList } from "./layout/printList.ts";
import { printLiteral } from "./layout/printLiteral.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";
import { tidyLines } from "./layout/tidyLines.ts";
import { compileModuleTemplate, type ModuleContext } from "./moduleTemplate.ts";
import { cursorReads } from "./cursorReads.ts";

const templatesModule = compileModuleTemplate("templates.ts.hbs");

/** `generated/templates.ts`: a strict parser and an argument rebuild per template. */
export function renderTemplatesModule({ app, header, templates }: ModuleContext): string {
  const reads = templates.map(cursorReads);
  const usesCursor = reads.some((lines) => lines.length > 0);
  const runtime = [
    "FieldReader",
    ...usedPickers(templates),
    "splitUri",
    ...(usesCursor ? ["UriCursor"] : []),
    "type CommandTemplate",
  ];
  const imports =
    templates.length === 0
      ? []
      : [
          layOut(importDoc(runtime, "livecmd/uri"), { indent: 0, column: 0 }),
          layOut(
            importDoc(
              templates.map((t) => variablesTypeName(t.name)),
              "./uris.js",
              true,
            ),
            { indent: 0, column: 0 },
          ),
        ];
  return tidyLines(
    templatesModule({
      header,
      app,
      imports: imports.join("\n"),
      usesCursor,
      templates: templates.map((template, index) => ({
        name: template.name,
        nameLiteral: stringLiteral(template.name),
        uriTemplateLiteral: valueAfterKey(
          "uriTemplate",
          stringLiteral(template.uriTemplate),
          true,
          4,
        ),
        variablesLiteral: printLiteral(variables(template), {
          indent: 4,
          column: 4 + "variables: ".length,
          after: ",",
        }),
        baseLiteral: stringLiteral(template.base),
        cursorReads: reads[index],
        splitArguments: splitArguments(template),
        partsBinding: [template.path.length > 0 && "path", template.query.length > 0 && "query"]
          .filter(Boolean)
          .join(", "),
        fields: [
          ...template.path.map((variable) => ({
            name: variable.name,
            readCall: valueAfterKey(variable.name, readCallDoc(variable, "path"), false, 8),
          })),
          ...template.query.map((variable) => ({
            name: variable.name,
            readCall: valueAfterKey(variable.name, readCallDoc(variable, "query"), false, 8),
          })),
        ],
        argsExpression: argsExpression(template),
        typeName: variablesTypeName(template.name),
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
  // Most values fit beside their key: then the doc printer has nothing to decide.
  const flat = flatText(value);
  if (flat !== undefined && fitsOnLine(flat, indent + key.length + 2, ",")) return flat;
  const printed = layOut(assignmentDoc(key, value, valueIsString), {
    indent,
    column: indent,
    after: ",",
  });
  return printed.slice(key.length + 1).replace(/^ /, "");
}

function variables(template: TemplatePlan): TemplateVariable[] {
  return [
    ...template.path.map((variable) => ({
      name: variable.name,
      in: "path" as const,
      schema: variable.schema,
    })),
    ...template.query.map((variable) => ({
      name: variable.name,
      in: "query" as const,
      schema: variable.schema,
    })),
  ];
}

/** `(uri, base, pathNames, queryNames)` of `const split = splitUri(...);`: two arrays last, so neither is hugged. */
function splitArguments(template: TemplatePlan): string {
  const names = (variables: PlannedVariable[]) =>
    literalDoc(variables.map((variable) => variable.name));
  const args = ["uri", stringLiteral(template.base), names(template.path), names(template.query)];
  return printList(
    args,
    "()",
    { indent: 6, column: 6 + "const split = splitUri".length, after: ";" },
    argumentsDoc(args, false),
  );
}

/** `read.kind("name", from.name)`, or with the enum's values last; a plain string when that is all it can be. */
function readCallDoc(variable: PlannedVariable, from: "path" | "query"): Doc {
  const args = [stringLiteral(variable.name), `${from}.${variable.name}`];
  const values = variable.kind === "enum" ? literalDoc(variable.schema.enum) : undefined;
  const flat = `read.${variable.kind}(${[...args, ...(values === undefined ? [] : [flatText(values)])].join(", ")})`;
  // It fits on its field line (indented 8, after `name: `): no doc to build.
  if (fitsOnLine(flat, 8 + variable.name.length + 2, ",")) return flat;
  if (values !== undefined) return group(["read.enum", argumentsDoc([...args, values], true)]);
  return group([`read.${variable.kind}`, argumentsDoc(args, false)]);
}

/** The array after `args: (vars) => `. */
function argsExpression(template: TemplatePlan): string {
  const elements = template.args.map(argumentDoc);
  return printList(
    elements,
    "[]",
    { indent: 4, column: 4 + "args: (vars) => ".length, after: "," },
    arrayDoc(elements),
  );
}

function argumentDoc(argument: ArgumentPlan): Doc {
  if (argument.kind === "variable") return `vars.${argument.name}`;
  const picker = argument.orUndefined ? "pickDefinedOrUndefined" : "pickDefined";
  const fields = literalDoc(argument.fields);
  const flat = `${picker}(vars, ${flatText(fields)})`;
  // It fits as an element of the broken args array (indented 6), so it fits in a flat one too.
  if (fitsOnLine(flat, 6, ",")) return flat;
  return group([picker, argumentsDoc(["vars", fields], true)]);
}

function usedPickers(templates: TemplatePlan[]): string[] {
  const arguments_ = templates.flatMap((template) => template.args);
  return [
    arguments_.some((argument) => argument.kind === "struct" && !argument.orUndefined) &&
      "pickDefined",
    arguments_.some((argument) => argument.kind === "struct" && argument.orUndefined) &&
      "pickDefinedOrUndefined",
  ].filter((name): name is string => typeof name === "string");
}

const { group } = builders;
