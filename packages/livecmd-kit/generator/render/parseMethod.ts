import { builders } from "prettier/doc";
import { isPlainConstant } from "livecmd/internal";
import { literal, variablesTypeName } from "../plan/naming.ts";
import type { TemplatePlan } from "../plan/planCommand.ts";
import type { PlannedVariable } from "../plan/planVariables.ts";
import { argumentsDoc } from "./layout/callDoc.ts";
import { indented, type CodeLine, type Line } from "./layout/code.ts";
import { ifStatement } from "./layout/ifStatement.ts";
import { flatText } from "./layout/flatText.ts";
import { fitsOnLine, type Placement } from "./layout/layOut.ts";
import { literalDoc } from "./layout/literalDoc.ts";
import { printList } from "./layout/printList.ts";
import { printProperty } from "./layout/printProperty.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";

const { group } = builders;

/**
 * The one `UriCursor` every parser in templates.ts reads with, declared once at the top of the
 * module when any parser reads in one pass.
 */
export const CURSOR_DECLARATION: CodeLine[] = [
  "/** Reads the URIs `uris.*` write, for every parser below: parsing is synchronous. */",
  "const cursor = new UriCursor();",
];

/** Whether the template's parser reads its URIs in one pass with the module's cursor first. */
export function readsWithCursor(template: TemplatePlan): boolean {
  return [...template.path, ...template.query].every(readsInPlace);
}

/**
 * A template's `parse(uri)`: the URI as `uris.*` writes it read in one pass with the cursor,
 * then any URI read strictly (`splitUri`, a `FieldReader`), every bad field reported.
 */
export function parseMethod(template: TemplatePlan): CodeLine[] {
  return [
    "parse(uri) {",
    indented(
      ...(readsWithCursor(template) ? onePassRead(template) : []),
      ["const split = splitUri", (placement) => splitArguments(template, placement), ";"],
      "if (!split.parts) return split;",
      partsDeclaration(template),
      "const read = new FieldReader(split.errors);",
      "return read.result({",
      indented(
        ...template.path.map((variable) => fieldRead(variable, "path")),
        ...template.query.map((variable) => fieldRead(variable, "query")),
      ),
      "});",
    ),
    "},",
  ];
}

/**
 * Each path segment and each query parameter that is present sets its variable, in URI order;
 * anything else falls through to the strict read.
 */
function onePassRead(template: TemplatePlan): CodeLine[] {
  return [
    `// As \`uris.${template.name}\` writes it, read in one pass; any other URI is read strictly below.`,
    `if (cursor.start(uri, ${stringLiteral(template.base)})) {`,
    indented(
      `const vars = {} as ${variablesTypeName(template.name)};`,
      ...template.path.map((variable) => ifStatement("cursor.segment()", cursorRead(variable))),
      ...template.query.map((variable) =>
        ifStatement(`cursor.param(${literal(variable.name)})`, cursorRead(variable)),
      ),
      "if (cursor.end()) return { ok: true, vars };",
    ),
    "}",
  ];
}

/**
 * A variable the cursor cannot read: `vars.__proto__ = ...` would set the prototype, and an enum
 * constant `oneOf` cannot compare in place (empty, or with a character that is written escaped
 * or splits the URI). A template with one is read strictly only.
 */
function readsInPlace(variable: PlannedVariable): boolean {
  if (variable.name === "__proto__") return false;
  return variable.kind !== "enum" || (variable.schema.enum as string[]).every(isPlainConstant);
}

function cursorRead(variable: PlannedVariable): string {
  const read =
    variable.kind === "enum"
      ? `oneOf([${(variable.schema.enum as string[]).map(literal).join(", ")}])`
      : `${variable.kind}()`;
  return `vars.${variable.name} = cursor.${read};`;
}

/** `(uri, base, pathNames, queryNames)`: two arrays last, so neither is hugged. */
function splitArguments(template: TemplatePlan, placement: Placement): string {
  const names = (variables: PlannedVariable[]) =>
    literalDoc(variables.map((variable) => variable.name));
  const args = ["uri", stringLiteral(template.base), names(template.path), names(template.query)];
  return printList(args, "()", placement, argumentsDoc(args, false));
}

function partsDeclaration(template: TemplatePlan): string {
  const parts = [template.path.length > 0 && "path", template.query.length > 0 && "query"];
  return `const { ${parts.filter(Boolean).join(", ")} } = split.parts;`;
}

function fieldRead(variable: PlannedVariable, from: "path" | "query"): Line {
  return [(placement) => readProperty(variable, from, placement), ","];
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
