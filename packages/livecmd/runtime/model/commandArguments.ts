import type { JsonSchema } from "../uri/template.ts";
import type { ArgumentShape } from "./catalog.ts";

export type ArgumentsObject = Record<string, unknown>;

/**
 * The handler's argument list for `tools/call` arguments: the whole object for a command that
 * takes one object, one property per parameter otherwise, `{}` for a struct of optional fields
 * left out. `templates.*.args(vars)` builds the same list from a URI's variables, which is what
 * makes a read and a call indistinguishable.
 */
export function handlerArgs(shape: ArgumentShape, values: ArgumentsObject): unknown[] {
  if (shape.kind === "object") return [values];
  const empty = new Set(shape.emptyIfAbsent);
  return shape.names.map((name) =>
    values[name] === undefined && empty.has(name) ? {} : values[name],
  );
}

/** The inverse of `handlerArgs`, so rebuilt arguments can be validated like a call's. */
export function argumentsObject(shape: ArgumentShape, args: readonly unknown[]): ArgumentsObject {
  if (shape.kind === "object") return (args[0] ?? {}) as ArgumentsObject;
  const values: ArgumentsObject = {};
  shape.names.forEach((name, index) => {
    if (args[index] !== undefined) values[name] = args[index];
  });
  return values;
}

/**
 * The URI variable an error about the arguments `field` (`filter.day`, as the schema names it)
 * is about: a struct parameter's field is a variable of its own name (`day`), since a URI
 * flattens structs one level deep; any other field is named as it is. A read's errors name
 * what its URI spells, whichever check found them.
 */
export function variableOf(shape: ArgumentShape, field: string): string {
  if (shape.kind === "object") return field;
  const dot = field.indexOf(".");
  return dot > 0 && shape.names.includes(field.slice(0, dot)) ? field.slice(dot + 1) : field;
}

/**
 * The schema of URI variable `name` in a command's published `inputSchema`: the argument of its
 * name, or the field of its name of a struct argument (a URI flattens structs one level deep).
 */
export function variableSchema(
  shape: ArgumentShape,
  inputSchema: JsonSchema,
  name: string,
): JsonSchema | undefined {
  const properties = propertiesOf(inputSchema);
  if (shape.kind === "object" || properties[name]) return properties[name];
  for (const param of shape.names) {
    const field = propertiesOf(properties[param])[name];
    if (field) return field;
  }
  return undefined;
}

function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  return (schema?.properties ?? {}) as Record<string, JsonSchema>;
}
