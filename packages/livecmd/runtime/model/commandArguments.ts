import type { JsonSchema } from "../uri/template.ts";
import type { ArgumentShape } from "./catalog.ts";

export type ArgumentsObject = Record<string, unknown>;

/** A command parameter as the tool-argument rule sees it. */
export interface ToolParameter {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly optional: boolean;
}

/**
 * The rule for tool arguments, the one place it is decided (codegen publishes what it plans; the
 * server applies it with `handlerArgs`): a command whose single parameter is a struct takes the
 * struct's fields; any other takes one argument per parameter, named after it, a struct as an
 * object under its name. An argument is required unless its parameter is optional or a struct
 * whose fields are all optional, which a call may leave out as a URI may (the handler then gets
 * `{}`).
 */
export function toolArguments(params: readonly ToolParameter[]): {
  inputSchema: JsonSchema;
  shape: ArgumentShape;
} {
  const [only] = params;
  if (params.length === 1 && only && isStruct(only.schema))
    return { inputSchema: only.schema, shape: { kind: "object" } };
  const emptyIfAbsent = params
    .filter(
      (param) => !param.optional && isStruct(param.schema) && param.schema.required.length === 0,
    )
    .map((param) => param.name);
  return {
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(params.map((param) => [param.name, param.schema])),
      required: params
        .filter((param) => !param.optional && !emptyIfAbsent.includes(param.name))
        .map((param) => param.name),
      additionalProperties: false,
    },
    shape: {
      kind: "positional",
      names: params.map((param) => param.name),
      ...(emptyIfAbsent.length > 0 && { emptyIfAbsent }),
    },
  };
}

/** A struct: an object with named fields and no open keys (what one level of flattening takes). */
export function isStruct(
  schema: JsonSchema,
): schema is JsonSchema & { properties: Record<string, JsonSchema>; required: string[] } {
  return (
    schema.type === "object" &&
    typeof schema.properties === "object" &&
    schema.additionalProperties === false
  );
}

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
