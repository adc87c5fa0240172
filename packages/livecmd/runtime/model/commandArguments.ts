import type { ArgumentShape } from "./catalog.ts";

export type ArgumentsObject = Record<string, unknown>;

/**
 * The handler's argument list for `tools/call` arguments: the whole object for a command that
 * takes one object, one property per parameter otherwise. `templates.*.args(vars)` builds the
 * same list from a URI's variables, which is what makes a read and a call indistinguishable.
 */
export function handlerArgs(shape: ArgumentShape, values: ArgumentsObject): unknown[] {
  return shape.kind === "object" ? [values] : shape.names.map((name) => values[name]);
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
