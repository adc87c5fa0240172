import { builders } from "prettier/doc";
import type { TemplateVariable } from "livecmd/internal";
import type { PlannedVariable } from "../plan/planVariables.ts";
import type { ArgumentPlan, TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { argumentsDoc } from "./layout/callDoc.ts";
import { importDoc } from "./layout/importDoc.ts";
import { flatText } from "./layout/flatText.ts";
import { fitsOnLine, layOut, TAB_WIDTH, type Doc, type Placement } from "./layout/layOut.ts";
import { arrayDoc, literalDoc } from "./layout/literalDoc.ts";
import { printList } from "./layout/printList.ts";
import { printLiteralProperty } from "./layout/printLiteral.ts";
import { printProperty } from "./layout/printProperty.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";
import { compileModuleTemplate, type ModuleContext } from "./moduleTemplate.ts";
import { cursorReads } from "./cursorReads.ts";

const { group } = builders;

const templatesModule = compileModuleTemplate<object>("templates.ts.hbs");
const at = (name: string) => templatesModule.placement(name);

/** `generated/templates.ts`: a strict parser and an argument rebuild per template. */
export function renderTemplatesModule({ app, header, templates }: ModuleContext): string {
  const reads = templates.map((template) => cursorReads(template, at("cursorRead").indent));
  const usesCursor = reads.some((lines) => lines.length > 0);
  return templatesModule.render({
    header,
    imports: templates.length === 0 ? "" : imports(templates, usesCursor),
    usesCursor,
    templatesDoc: docComment([
      `The resource templates of app "${app}", by command name: each parses an expanded URI back`,
      "into typed variables (strictly: every bad field is reported) and rebuilds the command's",
      "arguments exactly as `tools/call` with the same values would.",
    ]),
    templates: templates.map((template, index) => ({
      name: template.name,
      nameProperty: printProperty("name", stringLiteral(template.name), true, at("nameProperty")),
      uriTemplateProperty: printProperty(
        "uriTemplate",
        stringLiteral(template.uriTemplate),
        true,
        at("uriTemplateProperty"),
      ),
      variablesProperty: printLiteralProperty(
        "variables",
        variables(template),
        at("variablesProperty"),
      ),
      cursorComment: `// As \`uris.${template.name}\` writes it, read in one pass; any other URI is read strictly below.`,
      cursorStart: `if (cursor.start(uri, ${stringLiteral(template.base)}))`,
      varsDeclaration: `const vars = {} as ${variablesTypeName(template.name)};`,
      cursorReads: reads[index]!.map((cursorRead) => ({ cursorRead })),
      splitStatement: splitStatement(template, at("splitStatement")),
      partsStatement: `const { ${[template.path.length > 0 && "path", template.query.length > 0 && "query"].filter(Boolean).join(", ")} } = split.parts;`,
      fields: [
        ...template.path.map((variable) => ({
          readProperty: readProperty(variable, "path", at("readProperty")),
        })),
        ...template.query.map((variable) => ({
          readProperty: readProperty(variable, "query", at("readProperty")),
        })),
      ],
      argsProperty: argsProperty(template, at("argsProperty")),
      satisfiesClause: `} satisfies CommandTemplate<${variablesTypeName(template.name)}>`,
    })),
  });
}

function imports(templates: TemplatePlan[], usesCursor: boolean): string {
  const runtime = [
    "FieldReader",
    ...usedPickers(templates),
    "splitUri",
    ...(usesCursor ? ["UriCursor"] : []),
    "type CommandTemplate",
  ];
  const types = templates.map((template) => variablesTypeName(template.name));
  const placement = at("imports");
  return [
    layOut(importDoc(runtime, "livecmd/uri"), placement),
    layOut(importDoc(types, "./uris.js", true), placement),
  ].join("\n");
}

function docComment(lines: string[]): string {
  return ["/**", ...lines.map((line) => ` * ${line}`), " */"].join("\n");
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

/** `const split = splitUri(uri, base, pathNames, queryNames);`: two arrays last, so neither is hugged. */
function splitStatement(template: TemplatePlan, placement: Placement): string {
  const names = (variables: PlannedVariable[]) =>
    literalDoc(variables.map((variable) => variable.name));
  const args = ["uri", stringLiteral(template.base), names(template.path), names(template.query)];
  const head = "const split = splitUri";
  const list = printList(
    args,
    "()",
    { indent: placement.indent, column: placement.column + head.length, after: ";" },
    argumentsDoc(args, false),
  );
  return `${head}${list};`;
}

/** `name: read.kind("name", from.name)`, or with the enum's values last. */
function readProperty(
  variable: PlannedVariable,
  from: "path" | "query",
  placement: Placement,
): string {
  const args = [stringLiteral(variable.name), `${from}.${variable.name}`];
  const values = variable.kind === "enum" ? literalDoc(variable.schema.enum) : undefined;
  const flat = `read.${variable.kind}(${[...args, ...(values === undefined ? [] : [flatText(values)])].join(", ")})`;
  // Most fit beside their name: no doc to build.
  if (fitsOnLine(`${variable.name}: ${flat}`, placement.column, placement.after))
    return `${variable.name}: ${flat}`;
  const call =
    values === undefined
      ? group([`read.${variable.kind}`, argumentsDoc(args, false)])
      : group(["read.enum", argumentsDoc([...args, values], true)]);
  return printProperty(variable.name, call, false, placement);
}

/** `args: (vars) => [...]`, the handler's argument list rebuilt from the variables. */
function argsProperty(template: TemplatePlan, placement: Placement): string {
  const head = "args: (vars) => ";
  const elements = template.args.map((argument) =>
    argumentDoc(argument, placement.indent + TAB_WIDTH),
  );
  return (
    head +
    printList(
      elements,
      "[]",
      { indent: placement.indent, column: placement.column + head.length, after: placement.after },
      arrayDoc(elements),
    )
  );
}

/** One element of the args array; `elementIndent`: where it sits when the array breaks. */
function argumentDoc(argument: ArgumentPlan, elementIndent: number): Doc {
  if (argument.kind === "variable") return `vars.${argument.name}`;
  const picker = argument.orUndefined ? "pickDefinedOrUndefined" : "pickDefined";
  const fields = literalDoc(argument.fields);
  const flat = `${picker}(vars, ${flatText(fields)})`;
  // It fits as an element of the broken array, so it fits in a flat one too.
  if (fitsOnLine(flat, elementIndent, ",")) return flat;
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
