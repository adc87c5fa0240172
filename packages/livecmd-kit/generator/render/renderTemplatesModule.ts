import { builders } from "prettier/doc";
import type { TemplateVariable } from "livecmd/internal";
import type { ArgumentPlan, TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { argumentsDoc } from "./layout/callDoc.ts";
import type { Reuse } from "../reuse.ts";
import {
  docUnit,
  indented,
  printCode,
  reusedLines,
  type CodeLine,
  type Line,
} from "./layout/code.ts";
import { importDoc } from "./layout/importDoc.ts";
import { flatText } from "./layout/flatText.ts";
import { fitsOnLine, TAB_WIDTH, type Doc, type Placement } from "./layout/layOut.ts";
import { arrayDoc, literalDoc } from "./layout/literalDoc.ts";
import { printList } from "./layout/printList.ts";
import { printLiteralProperty } from "./layout/printLiteral.ts";
import { printProperty } from "./layout/printProperty.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";
import { CURSOR_DECLARATION, parseMethod, readsWithCursor } from "./parseMethod.ts";

const { group } = builders;

export interface ModuleContext {
  app: string;
  header: string;
  templates: TemplatePlan[];
  /** What the last generation printed (`codegen --watch`). */
  reuse?: Reuse;
}

/** `generated/templates.ts`: a strict parser and an argument rebuild per template. */
export function renderTemplatesModule({ app, header, templates, reuse }: ModuleContext): string {
  const usesCursor = templates.some(readsWithCursor);
  return printCode(
    [
      header,
      ...(templates.length === 0 ? [] : imports(templates, usesCursor)),
      "",
      ...(usesCursor ? [...CURSOR_DECLARATION, ""] : []),
      "/**",
      ` * The resource templates of app "${app}", by command name: each parses an expanded URI back`,
      " * into typed variables (strictly: every bad field is reported) and rebuilds the command's",
      " * arguments exactly as `tools/call` with the same values would.",
      " */",
      ...(templates.length === 0
        ? ["export const templates = {};"]
        : [
            "export const templates = {",
            indented(
              ...templates.map((template) =>
                reusedLines(reuse, template, "template", () => commandTemplate(template)),
              ),
            ),
            "};",
          ]),
      "",
      "export type TemplateName = keyof typeof templates;",
    ],
    reuse && { reuse, file: "templates.ts" },
  );
}

function imports(templates: TemplatePlan[], usesCursor: boolean): CodeLine[] {
  const runtime = [
    "FieldReader",
    ...usedPickers(templates),
    "splitUri",
    ...(usesCursor ? ["UriCursor"] : []),
    "type CommandTemplate",
  ];
  const types = templates.map((template) => variablesTypeName(template.name));
  return [
    [docUnit(importDoc(runtime, "livecmd/uri"))],
    [docUnit(importDoc(types, "./uris.js", true))],
  ];
}

/** `name: { ... } satisfies CommandTemplate<NameVariables>,` */
function commandTemplate(template: TemplatePlan): CodeLine[] {
  return [
    `${template.name}: {`,
    indented(
      stringProperty("name", template.name),
      stringProperty("uriTemplate", template.uriTemplate),
      [(placement) => printLiteralProperty("variables", variables(template), placement), ","],
      ...parseMethod(template),
      ["args: (vars) => ", (placement) => argsArray(template, placement), ","],
    ),
    `} satisfies CommandTemplate<${variablesTypeName(template.name)}>,`,
  ];
}

/** `key: "value",`, the string below its key when too long. */
function stringProperty(key: string, value: string): Line {
  return [(placement) => printProperty(key, stringLiteral(value), true, placement), ","];
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

/** `[...]` of `args: (vars) => [...]`, the handler's argument list rebuilt from the variables. */
function argsArray(template: TemplatePlan, placement: Placement): string {
  const elements = template.args.map((argument) =>
    argumentDoc(argument, placement.indent + TAB_WIDTH),
  );
  return printList(elements, "[]", placement, arrayDoc(elements));
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
