import { commentSafe } from "./commentSafe.ts";
import { builders } from "prettier/doc";
import type { JsonSchema } from "../model.ts";
import type { TemplatePlan } from "../plan/planCommand.ts";
import { resultTypeName } from "../plan/naming.ts";
import { isStruct } from "livecmd/internal";
import { reused, type Reuse } from "../reuse.ts";
import { docUnit, reusedLines, type CodeLine } from "./layout/code.ts";
import type { Doc } from "./layout/layOut.ts";
import { propertyKey } from "./layout/propertyKey.ts";
import { stringLiteral } from "./layout/stringLiteral.ts";
import { docComment, interfaceLines, SCALAR_TYPES, variableDoc } from "./renderTypes.ts";

const { group, indent, softline, line, hardline, ifBreak, join, align } = builders;

const UNION_BAR = "| ";

/** The TypeScript type of each JSON Schema type name: the scalars', and `null`. */
const NAMED_TYPES: Record<string, string> = { ...SCALAR_TYPES, null: "null" };

/**
 * What reading each template returns, as TypeScript: `CustomersShowResult` and the rest, and
 * `TemplateResults` by command name. Written from the result schema as prettier lays it out
 * (the layout oracle test holds it to that): objects one member a line, unions one `| member` a
 * line when too long. A builder in `uris` returns a `ResourceUri` carrying the type.
 */
export function renderResultTypes(templates: TemplatePlan[], reuse?: Reuse): CodeLine[] {
  if (templates.length === 0) return [];
  const root = interfaceLines(
    "TemplateResults",
    "What reading each resource template returns, by command name.",
    templates.map((template) => `${template.name}: ${resultTypeName(template.name)};`),
  );
  // A result the same as an earlier template's is that type again, not a second copy of it.
  const firstWith = new Map<string, string>();
  const types = templates.map((template) => {
    const key = reused(reuse, template, "result key", () => JSON.stringify(template.result));
    const same = firstWith.get(key);
    if (same === undefined) firstWith.set(key, resultTypeName(template.name));
    return reusedLines(reuse, template, `result ${same ?? ""}`, () =>
      resultTypeOf(template.name, template.uriTemplate, template.result, same),
    );
  });
  return [...root, ...types];
}

/**
 * The result type of `command`, read as `uri` (its template, or its plain resource): an
 * interface, or a type alias (of `same`, an earlier type with that result, when given).
 */
export function resultTypeOf(
  command: string,
  uri: string,
  schema: JsonSchema,
  same?: string,
): CodeLine[] {
  const name = resultTypeName(command);
  const doc = docComment(`What reading \`${uri}\` returns: the result of ${command}.`);
  if (same === undefined && isStruct(schema) && Object.keys(schema.properties).length > 0)
    return [...doc, [`export interface ${name} `, docUnit(objectDoc(schema))]];
  // Too long for its line, the type moves below `=`, as prettier moves it.
  const type = same === undefined ? annotationDoc(schema) : group(indent([softline, same]));
  // Laid out with its head: a union that breaks leaves no space after the `=`.
  return [...doc, [docUnit([`export type ${name} = `, type]), ";"]];
}

/** A type where prettier indents a union that breaks: a property's or an alias's. */
function annotationDoc(schema: JsonSchema): Doc {
  const members = unionMembers(schema);
  if (members.length === 1) return typeDoc(members[0]!);
  const hugged = huggedUnion(members);
  if (hugged) return hugged;
  return group(indent([softline, group(unionDoc(members))]));
}

function typeDoc(schema: JsonSchema): Doc {
  const members = unionMembers(schema);
  if (members.length > 1) return huggedUnion(members) ?? group(unionDoc(members));
  const only = members[0]!;
  if (Array.isArray(only.enum)) return literalOf(only.enum[0]);
  switch (only.type) {
    case "array":
      return arrayDoc(only.items as JsonSchema | undefined);
    case "object":
      return isStruct(only) ? structDoc(only) : recordDoc(only);
    default:
      return typeof only.type === "string" ? (NAMED_TYPES[only.type] ?? "unknown") : "unknown";
  }
}

/**
 * The schema as the members of a union: `anyOf`'s, an enum's constants, a `[T, "null"]` type's
 * two. A schema that is none of those is a union of one.
 */
function unionMembers(schema: JsonSchema): JsonSchema[] {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).flatMap(unionMembers);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => ({ enum: [value] }));
  if (Array.isArray(schema.type))
    return schema.type.map((type) => ({ ...schema, type: type as string }));
  return [schema];
}

function unionDoc(members: JsonSchema[]): Doc {
  return [
    ifBreak(UNION_BAR),
    join(
      [line, UNION_BAR],
      members.map((member) => align(UNION_BAR.length, typeDoc(member))),
    ),
  ];
}

/** One object type and `null`: prettier keeps the object's braces on the line (`{ ... } | null`). */
function huggedUnion(members: JsonSchema[]): Doc | undefined {
  const objects = members.filter(isObjectLiteral);
  const rest = members.filter((member) => !isObjectLiteral(member));
  if (objects.length !== 1 || !rest.every((member) => member.type === "null")) return undefined;
  return join(" | ", members.map(typeDoc));
}

/** Printed as `{ ... }`: a struct with fields, or a record; an empty struct is `Record<string, never>`. */
function isObjectLiteral(schema: JsonSchema): boolean {
  if (schema.type !== "object") return false;
  return !isStruct(schema) || Object.keys(schema.properties).length > 0;
}

function arrayDoc(items: JsonSchema | undefined): Doc {
  if (!items) return "unknown[]";
  const members = unionMembers(items);
  if (members.length === 1) return [typeDoc(items), "[]"];
  const hugged = huggedUnion(members);
  if (hugged) return ["(", hugged, ")[]"];
  return group(["(", indent([softline, group(unionDoc(members))]), softline, ")[]"]);
}

function structDoc(
  schema: JsonSchema & { properties: Record<string, JsonSchema>; required: string[] },
): Doc {
  if (Object.keys(schema.properties).length === 0) return "Record<string, never>";
  return objectDoc(schema);
}

/** Always broken, one member a line: prettier keeps an object type broken once it is. */
function objectDoc(
  schema: JsonSchema & { properties: Record<string, JsonSchema>; required: string[] },
): Doc {
  const members = Object.entries(schema.properties).map(([name, property]) => {
    const optional = schema.required.includes(name) ? "" : "?";
    return [memberDoc(property), propertyKey(name), optional, ": ", annotationDoc(property), ";"];
  });
  return ["{", indent([hardline, join(hardline, members)]), hardline, "}"];
}

function recordDoc(schema: JsonSchema): Doc {
  const values = schema.additionalProperties;
  const value = typeof values === "object" && values !== null ? (values as JsonSchema) : {};
  return ["{", indent([hardline, "[key: string]: ", annotationDoc(value), ";"]), hardline, "}"];
}

/** A member's doc comment (description and constraint tags), as the variables' interfaces have it. */
function memberDoc(schema: JsonSchema): Doc {
  const text = variableDoc(schema);
  if (text === undefined) return "";
  const lines = commentSafe(text).split("\n");
  return [
    "/**",
    hardline,
    join(
      hardline,
      lines.map((line) => ` * ${line}`.trimEnd()),
    ),
    hardline,
    " */",
    hardline,
  ];
}

function literalOf(value: unknown): string {
  return typeof value === "string" ? stringLiteral(value) : String(value);
}
