import type { Type } from "ts-morph";
import type { JsonSchema } from "../model.ts";
import type { CommandSyntax } from "../discover/readCommand.ts";
import { typeToSchema, withNull } from "./typeToSchema.ts";

/**
 * The JSON Schema of a command's result: its handler's return type through `Promise`, by the
 * rules arguments follow (`typeToSchema`), with the same CG004 for types that have no JSON form.
 * The runtime sends an `undefined` result as `null` (`JSON.stringify(result ?? null)`), so
 * `void` is `null` and a result that may be `undefined` is nullable.
 */
export function resultSchema(command: CommandSyntax): JsonSchema {
  const returned = command.handler.getReturnType();
  const type = returned.getAwaitedType() ?? returned;
  if (isNothing(type)) return { type: "null" };
  const typeNode = command.handler.getReturnTypeNode();
  const schema = typeToSchema(type, {
    node: typeNode ?? command.handler,
    // Literal order comes from the written type; a `Promise<...>` wrapper is not that type.
    typeNode: typeNode && returned === type ? typeNode : undefined,
    describe: `the result of command "${command.name}"`,
    role: "result",
  });
  return mayBeUndefined(type) && !acceptsNull(schema) ? withNull(schema) : schema;
}

function isNothing(type: Type): boolean {
  return type.isUndefined() || type.isVoid();
}

function mayBeUndefined(type: Type): boolean {
  return type.isUnion() && type.getUnionTypes().some(isNothing);
}

function acceptsNull(schema: JsonSchema): boolean {
  return (
    (Array.isArray(schema.type) && schema.type.includes("null")) ||
    (Array.isArray(schema.anyOf) &&
      schema.anyOf.some((member) => (member as JsonSchema).type === "null"))
  );
}
