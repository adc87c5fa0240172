import fc from "fast-check";
import type { TemplateVariable } from "../../packages/livecmd/runtime/uri/template.ts";

/**
 * Any value a variable's schema accepts and a URI can spell: path values are never empty, and
 * strings come from `strings` (given the minimum length).
 */
export function schemaValue(
  variable: TemplateVariable,
  strings: (minLength: number) => fc.Arbitrary<string>,
): fc.Arbitrary<unknown> {
  const schema = variable.schema as { type: string; enum?: string[] };
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case "integer":
      return fc.maxSafeInteger();
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    default:
      return strings(variable.in === "path" ? 1 : 0);
  }
}
