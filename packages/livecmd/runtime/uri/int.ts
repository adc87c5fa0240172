/**
 * An integer. Its JSON Schema is `{"type":"integer"}` (a plain `number` is `{"type":"number"}`),
 * and a URI builder's integer variable takes an `Int`, so `1.5` is a compile error, not a URI
 * the server refuses. Make one from a number with `int()`.
 */
export type Int = number & { readonly __brand: "Int" };

/** `value` as an `Int`; throws a RangeError unless it is a safe integer. */
export function int(value: number): Int {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`livecmd: int(${value}): not an integer from -(2^53 - 1) to 2^53 - 1`);
  return value as Int;
}
