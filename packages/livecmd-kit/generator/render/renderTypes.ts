import { commentSafe } from "./commentSafe.ts";
import { builders } from "prettier/doc";
import { CONSTRAINT_KEYWORDS, type JsonSchema } from "../model.ts";
import type { PlannedVariable } from "../plan/planVariables.ts";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import type { Reuse } from "../reuse.ts";
import { docUnit, indented, reusedLines, type CodeLine } from "./layout/code.ts";
import type { Doc } from "./layout/layOut.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";

const { group, indent, softline, line, ifBreak, join, align } = builders;

/** What starts each member of a broken union. */
const UNION_BAR = "| ";

/**
 * The variables' TypeScript types, so a wrong enum value or a missing required variable is a
 * compile error in the caller. Written out directly, in the layout json-schema-to-typescript
 * gives the published schemas once prettier has formatted it; a test holds the two equal.
 */
export function renderVariableTypes(templates: TemplatePlan[], reuse?: Reuse): CodeLine[] {
  if (templates.length === 0) return [];
  const root = interfaceLines(
    "TemplateVariables",
    "The variables of every resource template, by command name.",
    templates.map((template) => `${template.name}: ${variablesTypeName(template.name)};`),
  );
  return [
    ...root,
    ...templates.map((template) =>
      reusedLines(reuse, template, "variables", () => variablesInterface(template)),
    ),
  ];
}

function variablesInterface(template: TemplatePlan): CodeLine[] {
  const members = [...template.path, ...template.query].flatMap((variable) => {
    const text = variableDoc(variable.schema);
    // Laid out with its name: a union that breaks leaves no space after the colon.
    const member = [`${variable.name}${variable.required ? "" : "?"}: `, variableType(variable)];
    return [...(text === undefined ? [] : docComment(text)), [docUnit(member), ";"]];
  });
  return interfaceLines(
    variablesTypeName(template.name),
    `The variables of \`${template.uriTemplate}\`.`,
    members,
  );
}

/**
 * A variable's doc comment: its description, then its constraints as the JSDoc tags they were
 * written with, so an editor shows them where the builder is called.
 */
export function variableDoc(schema: JsonSchema): string | undefined {
  const description = typeof schema.description === "string" ? schema.description : undefined;
  const tags = CONSTRAINT_KEYWORDS.filter((keyword) => schema[keyword] !== undefined).map(
    (keyword) =>
      `@${keyword} ${keyword === "default" ? JSON.stringify(schema[keyword]) : String(schema[keyword])}`,
  );
  if (tags.length === 0) return description;
  return description === undefined ? tags.join("\n") : `${description}\n\n${tags.join("\n")}`;
}

/** `export interface Name { ... }` under its doc comment, one member a line. */
export function interfaceLines(name: string, description: string, members: CodeLine[]): CodeLine[] {
  return [...docComment(description), `export interface ${name} {`, indented(...members), "}"];
}

/** json-schema-to-typescript's block comment; it writes a `*\/` in the text as `* /`. */
export function docComment(text: string): CodeLine[] {
  const lines = commentSafe(text).split("\n");
  return ["/**", ...lines.map((line) => ` * ${line}`.trimEnd()), " */"];
}

/**
 * The TypeScript type of each scalar JSON Schema type: an integer is livecmd's `Int`, so a builder
 * given `1.5` is a compile error (`int(n)` makes one). Result types use it too.
 */
export const SCALAR_TYPES = {
  string: "string",
  integer: "Int",
  number: "number",
  boolean: "boolean",
} as const;

/** Every variable is a scalar; an enum of two or more values is a union, one `| "value"` a line when too long. */
function variableType(variable: PlannedVariable): Doc {
  if (variable.kind !== "enum") return SCALAR_TYPES[variable.kind];
  const values = (variable.schema.enum as string[]).map(stringLiteral);
  if (values.length === 1) return values[0]!;
  return group(
    indent([
      softline,
      group([
        ifBreak(UNION_BAR),
        join(
          [line, UNION_BAR],
          values.map((value) => align(UNION_BAR.length, value)),
        ),
      ]),
    ]),
  );
}
