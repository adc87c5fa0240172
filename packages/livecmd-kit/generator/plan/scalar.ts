import { isStruct } from "livecmd/internal";
import type { JsonSchema } from "../model.ts";

export type ScalarKind = "string" | "integer" | "number" | "boolean" | "enum";

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

/**
 * The RFC's scalar: a schema of type string, integer, number or boolean, or an enum of string
 * constants, optionally nullable. Returns undefined for anything else.
 */
export function scalarKind(schema: JsonSchema): ScalarKind | undefined {
  const types = Array.isArray(schema.type)
    ? schema.type.filter((type) => type !== "null")
    : [schema.type];
  if (types.length !== 1 || !SCALAR_TYPES.has(types[0] as string)) return undefined;
  if (schema.properties || schema.items || schema.anyOf || schema.additionalProperties)
    return undefined;
  if (schema.enum === undefined) return types[0] as ScalarKind;
  return types[0] === "string" ? "enum" : undefined;
}

/** The schema a URI variable carries: a URI cannot spell null, so the null branch is dropped. */
export function withoutNull(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.type)) return schema;
  const copy: JsonSchema = { ...schema, type: schema.type.find((type) => type !== "null") };
  if (Array.isArray(schema.enum)) copy.enum = schema.enum.filter((value) => value !== null);
  return copy;
}

/** A few words naming what kind of non-scalar a schema is, for reasons. */
export function describeShape(schema: JsonSchema): string {
  if (schema.type === "array") return "a list";
  if (isStruct(schema)) return "a nested object";
  if (schema.type === "object") return "a map with open keys";
  if (Array.isArray(schema.anyOf)) {
    const objects = schema.anyOf.every((member) => (member as JsonSchema).type === "object");
    return objects ? "a union of objects" : "a union of different types";
  }
  if (Array.isArray(schema.enum)) return "an enum of numbers (only string enums are scalars)";
  if (Object.keys(schema).filter((key) => key !== "description").length === 0)
    return "a value with no fixed type";
  return "not a scalar";
}
