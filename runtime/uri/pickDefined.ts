import type { WithoutUndefined } from "./template.ts";

/**
 * A new object with the `keys` of `obj` whose values are defined: how generated code
 * rebuilds a struct argument from its flattened variables, leaving absent fields out.
 */
export function pickDefined<T extends object, const K extends keyof T>(
  obj: T,
  keys: readonly K[],
): WithoutUndefined<Pick<T, K>> {
  return pickDefinedOrUndefined(obj, keys) ?? ({} as WithoutUndefined<Pick<T, K>>);
}

/** Like `pickDefined`, but `undefined` when no key is defined: an optional struct left out. */
export function pickDefinedOrUndefined<T extends object, const K extends keyof T>(
  obj: T,
  keys: readonly K[],
): WithoutUndefined<Pick<T, K>> | undefined {
  const picked: Partial<Pick<T, K>> = {};
  let any = false;
  for (const key of keys) {
    const value = obj[key];
    if (value !== undefined) {
      picked[key] = value;
      any = true;
    }
  }
  return any ? (picked as WithoutUndefined<Pick<T, K>>) : undefined;
}
