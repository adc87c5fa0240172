import type { WithoutUndefined } from "./template.ts";

/**
 * A new object with the `keys` of `obj` whose values are defined: how generated code
 * rebuilds a struct argument from its flattened variables, leaving absent fields out.
 */
export function pickDefined<T extends object, const K extends keyof T>(
  obj: T,
  keys: readonly K[],
): WithoutUndefined<Pick<T, K>> {
  return (definedEntries(obj, keys) ?? {}) as WithoutUndefined<Pick<T, K>>;
}

/** Like `pickDefined`, but `undefined` when no key is defined: an optional struct left out. */
export function pickDefinedOrUndefined<T extends object, const K extends keyof T>(
  obj: T,
  keys: readonly K[],
): WithoutUndefined<Pick<T, K>> | undefined {
  return definedEntries(obj, keys) as WithoutUndefined<Pick<T, K>> | undefined;
}

/**
 * `vars` without its `undefined` entries, or `vars` itself when it has none: generated parsers
 * hand over a fresh literal, so a URI that gives every variable (as any path-only template's
 * does) costs no second object.
 */
export function withoutUndefined<V extends object>(vars: V): WithoutUndefined<V> {
  for (const key in vars) {
    if (vars[key] === undefined) {
      return (definedEntries(vars, Object.keys(vars)) ?? {}) as WithoutUndefined<V>;
    }
  }
  return vars as WithoutUndefined<V>;
}

function definedEntries(
  obj: object,
  keys: readonly PropertyKey[],
): Record<PropertyKey, unknown> | undefined {
  let picked: Record<PropertyKey, unknown> | undefined;
  for (const key of keys) {
    const value = (obj as Record<PropertyKey, unknown>)[key];
    if (value === undefined) continue;
    picked ??= {};
    // Defined rather than assigned, so that a variable named `__proto__` stays a plain key
    // instead of replacing the prototype, as it does in splitUri's records.
    if (key === "__proto__") {
      Object.defineProperty(picked, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else picked[key] = value;
  }
  return picked;
}
