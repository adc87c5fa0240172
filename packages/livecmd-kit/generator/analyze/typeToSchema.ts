import { Node, type Symbol as MorphSymbol, type Type, type TypeNode } from "ts-morph";
import { byCodeUnit, type JsonSchema } from "../model.ts";
import { diagnosticAt, DiagnosticError } from "../discover/locate.ts";
import { isLivecmdModule } from "../discover/resolveDeclaration.ts";
import { withConstraintTags } from "./constraintTags.ts";
import { withExampleTags } from "./exampleTags.ts";

/** Where a type is written: for messages, and for reading literal order from the syntax. */
export interface TypeSite {
  /** The declaration whose type this is (parameter or property), for locations and property types. */
  node: Node;
  /** The type as written, when there is one: enum and literal order come from it, never from the checker. */
  typeNode: TypeNode | undefined;
  /** What is being converted, for messages: `parameter "id" of command "customers_show"`. */
  describe: string;
  /** Whether this is what a command takes (the default) or what it returns, for messages. */
  role?: "argument" | "result";
}

/** Types that have no JSON form, with what to write instead. */
const NO_JSON_FORM: Record<string, string> = {
  Date: "a string (ISO 8601, e.g. 2025-01-31)",
  Map: "Record<string, V>",
  Set: "an array",
  WeakMap: "Record<string, V>",
  WeakSet: "an array",
  Promise: "the resolved type",
  RegExp: "a string",
  Uint8Array: "a string (base64)",
};

/**
 * A checker type as the JSON Schema of what `tools/call` accepts for it. Optionality is the
 * caller's business: `undefined` is dropped from unions here, and `null` makes a schema nullable.
 */
export function typeToSchema(type: Type, site: TypeSite, visiting: Type[] = []): JsonSchema {
  if (type.isAny() || type.isUnknown()) return {};
  if (isIntBrand(type)) return { type: "integer" };
  if (type.isUnion() && !type.isBoolean() && !type.isEnum())
    return unionToSchema(type, site, visiting);
  if (type.isString()) return { type: "string" };
  if (type.isNumber()) return { type: "number" };
  if (type.isBoolean()) return { type: "boolean" };
  if (type.isStringLiteral() || type.isEnum() || type.isEnumLiteral())
    return enumToSchema(type, site);
  if (type.isNumberLiteral() || type.isBooleanLiteral()) return { enum: [literalOf(type)] };
  return objectToSchema(type, site, visiting);
}

function unionToSchema(type: Type, site: TypeSite, visiting: Type[]): JsonSchema {
  const members = type.getUnionTypes().filter((member) => !member.isUndefined());
  const nullable = members.some((member) => member.isNull());
  const rest = members.filter((member) => !member.isNull());
  const inner = rest.every((member) => member.isStringLiteral() || member.isEnumLiteral())
    ? enumToSchema(type, site)
    : rest.every((member) => member.isBooleanLiteral())
      ? { type: "boolean" }
      : rest.every((member) => member.isNumberLiteral())
        ? { type: "number", enum: literalsOf(type).sort((a, b) => Number(a) - Number(b)) }
        : rest.length === 1
          ? typeToSchema(rest[0]!, site, visiting)
          : { anyOf: anyOfMembers(rest, site, visiting) };
  return nullable ? withNull(inner) : inner;
}

/** A mixed union's members; the checker splits `boolean` into `true | false`, which are one boolean again. */
function anyOfMembers(members: Type[], site: TypeSite, visiting: Type[]): JsonSchema[] {
  const both = members.filter((member) => member.isBooleanLiteral()).length === 2;
  const schemas: JsonSchema[] = [];
  for (const member of members) {
    if (!both || !member.isBooleanLiteral()) schemas.push(typeToSchema(member, site, visiting));
    else if (!schemas.some((schema) => schema.type === "boolean"))
      schemas.push({ type: "boolean" });
  }
  return schemas;
}

export function withNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string" && !("anyOf" in schema)) {
    const nullable: JsonSchema = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  return { anyOf: [schema, { type: "null" }] };
}

function enumToSchema(type: Type, site: TypeSite): JsonSchema {
  const values =
    declaredLiteralOrder(type, site.typeNode) ?? literalsOf(type).sort(compareLiterals);
  if (!values.every((value) => typeof value === "string")) {
    throw unsupported(
      site,
      `${site.describe} is an enum of numbers; only string enums have a JSON Schema of string constants. Use a string enum or a union of string literals`,
    );
  }
  return { type: "string", enum: values };
}

/** Literal members in the order the declaring syntax lists them; the checker's order is not stable. */
function declaredLiteralOrder(type: Type, typeNode: TypeNode | undefined): unknown[] | undefined {
  const expected = new Set<unknown>(literalsOf(type).filter((value) => value !== null));
  const enumDeclaration = enumDeclarationOf(type);
  if (enumDeclaration) return enumDeclaration.getMembers().map((member) => member.getValue());
  const declared = literalsInSyntax(typeNode ?? aliasTypeNode(type.getAliasSymbol()));
  const sameSet =
    declared && declared.length === expected.size && declared.every((value) => expected.has(value));
  return sameSet ? declared : undefined;
}

function enumDeclarationOf(type: Type) {
  const members = type.isUnion() ? type.getUnionTypes() : [type];
  for (const member of [type, ...members]) {
    for (const declaration of member.getSymbol()?.getDeclarations() ?? []) {
      if (Node.isEnumDeclaration(declaration)) return declaration;
      if (Node.isEnumMember(declaration)) return declaration.getParent();
    }
  }
  return undefined;
}

function literalsInSyntax(node: TypeNode | undefined): unknown[] | undefined {
  if (!node) return undefined;
  if (Node.isParenthesizedTypeNode(node)) return literalsInSyntax(node.getTypeNode());
  if (Node.isTypeReference(node))
    return literalsInSyntax(aliasTypeNode(node.getTypeName().getSymbol()));
  if (Node.isLiteralTypeNode(node)) {
    const literal = node.getLiteral();
    return Node.isStringLiteral(literal)
      ? [literal.getLiteralValue()]
      : Node.isNullLiteral(literal)
        ? []
        : undefined;
  }
  if (Node.isUndefinedKeyword(node)) return [];
  if (!Node.isUnionTypeNode(node)) return undefined;
  const parts = node.getTypeNodes().map(literalsInSyntax);
  return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
}

function aliasTypeNode(symbol: MorphSymbol | undefined): TypeNode | undefined {
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  return target?.getDeclarations().find(Node.isTypeAliasDeclaration)?.getTypeNode();
}

function literalsOf(type: Type): unknown[] {
  const members = type.isUnion() ? type.getUnionTypes() : [type];
  return members.filter((member) => !member.isUndefined() && !member.isNull()).map(literalOf);
}

function literalOf(type: Type): unknown {
  if (type.isBooleanLiteral()) return type.getText() === "true";
  return type.getLiteralValue();
}

function compareLiterals(a: unknown, b: unknown): number {
  return byCodeUnit(String(a), String(b));
}

function objectToSchema(type: Type, site: TypeSite, visiting: Type[]): JsonSchema {
  rejectWithoutJsonForm(type, site);
  if (visiting.includes(type)) {
    throw unsupported(
      site,
      `${site.describe} has a recursive type (${type.getText(site.node)}); a command's ${plural(site)} must be finite JSON`,
    );
  }
  const element = type.getArrayElementType() ?? readonlyArrayElement(type);
  if (element) return { type: "array", items: typeToSchema(element, site, [...visiting, type]) };
  const indexType = type.getStringIndexType();
  if (indexType && type.getProperties().length === 0) {
    return {
      type: "object",
      additionalProperties: typeToSchema(indexType, site, [...visiting, type]),
    };
  }
  return propertiesToSchema(type, site, [...visiting, type]);
}

function propertiesToSchema(type: Type, site: TypeSite, visiting: Type[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const property of type.getProperties()) {
    const declaration = property.getValueDeclaration() ?? property.getDeclarations()[0];
    const propertyType = property.getTypeAtLocation(site.node);
    const name = property.getName();
    const propertySite: TypeSite = {
      ...site,
      node: declaration ?? site.node,
      typeNode: typeNodeOf(declaration),
      describe: `field "${name}" of ${site.describe}`,
    };
    const schema = typeToSchema(propertyType, propertySite, visiting);
    const documented = declaration && Node.isJSDocable(declaration) ? declaration : undefined;
    const description = documented ? docText(documented) : "";
    const tags = documented?.getJsDocs().flatMap((doc) => doc.getTags()) ?? [];
    const tagSite = { describe: propertySite.describe };
    const constrained = withConstraintTags(schema, tags, tagSite);
    properties[name] = withExampleTags(
      description ? { ...constrained, description } : constrained,
      tags,
      tagSite,
    );
    if (!property.isOptional() && !propertyType.isUndefined() && !includesUndefined(propertyType))
      required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

function rejectWithoutJsonForm(type: Type, site: TypeSite): void {
  const name = type.getSymbol()?.getName() ?? "";
  const hint = NO_JSON_FORM[name];
  // Only for messages: printing a type is costly, and most types are fine.
  const text = () => type.getText(site.node);
  if (hint)
    throw unsupported(
      site,
      `${site.describe} has type ${text()}, which has no JSON form; use ${hint}`,
    );
  if (type.getCallSignatures().length > 0)
    throw unsupported(
      site,
      `${site.describe} is a function (${text()}); ${plural(site)} must be JSON data`,
    );
  if (type.isTuple())
    throw unsupported(
      site,
      `${site.describe} is a tuple (${text()}); use an object with named fields`,
    );
  if (!type.isObject() || type.isUndefined() || type.isNull()) {
    throw unsupported(
      site,
      `${site.describe} has type ${text()}, which has no JSON form; use string, number, Int, boolean, a string enum, an array or an object`,
    );
  }
}

function plural(site: TypeSite): string {
  return site.role === "result" ? "results" : "arguments";
}

function readonlyArrayElement(type: Type): Type | undefined {
  return type.getSymbol()?.getName() === "ReadonlyArray" ? type.getTypeArguments()[0] : undefined;
}

function includesUndefined(type: Type): boolean {
  return type.isUnion() && type.getUnionTypes().some((member) => member.isUndefined());
}

function typeNodeOf(declaration: Node | undefined): TypeNode | undefined {
  return declaration &&
    (Node.isPropertySignature(declaration) || Node.isPropertyDeclaration(declaration))
    ? declaration.getTypeNode()
    : undefined;
}

function docText(node: Node & { getJsDocs(): { getDescription(): string }[] }): string {
  return node
    .getJsDocs()
    .map((doc) => doc.getDescription())
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The runtime's branded `Int`, recognised by its declaration, not just its name. */
function isIntBrand(type: Type): boolean {
  const alias = type.getAliasSymbol();
  return (
    alias?.getName() === "Int" &&
    alias
      .getDeclarations()
      .some((declaration) => isLivecmdModule(declaration.getSourceFile(), "uri/int"))
  );
}

function unsupported(site: TypeSite, message: string): DiagnosticError {
  return new DiagnosticError(diagnosticAt(site.node, "CG004", message));
}
