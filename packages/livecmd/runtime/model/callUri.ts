import { formQuery, pathSegment, type ScalarValue } from "../uri/expand.ts";
import type { ArgumentsObject } from "./commandArguments.ts";
import type { CommandEntry } from "./catalog.ts";

/**
 * The URI a `tools/call` of `entry` with `values` reads, the one `resources/read` answers the
 * same for: its plain resource, or its template expanded with the arguments, a struct argument's
 * fields being variables of their own names (a URI flattens structs one level deep). Undefined
 * when the command has neither, or a value is not one a URI variable holds.
 */
export function callUri(entry: CommandEntry, values: ArgumentsObject): string | undefined {
  if (entry.template === null) return entry.resource ?? undefined;
  const variables = new Map<string, unknown>();
  for (const [name, value] of Object.entries(values)) {
    const struct = isStructArgument(entry, name, value);
    if (struct) for (const [field, inner] of Object.entries(struct)) variables.set(field, inner);
    else variables.set(name, value);
  }
  const scalar = (name: string) => scalarOf(variables.get(name));
  if ([...variables.keys()].some((name) => variables.get(name) != null && !scalar(name)))
    return undefined;
  return expandTemplate(entry.template, (name) => scalar(name)?.value);
}

/**
 * `template` (`app://x/{a}{?b,c}`, the two forms livecmd's templates use) with each variable's
 * value, or without it when `valueOf` has none: the one expansion of a catalog template.
 */
export function expandTemplate(
  template: string,
  valueOf: (name: string) => ScalarValue | undefined,
  onMissing?: (name: string) => void,
): string {
  return template.replace(/\{(\??)([^}]*)\}/g, (_, query: string, names: string) => {
    const listed = names.split(",");
    if (query) return formQuery(listed.map((name) => [name, valueOf(name)]));
    const value = valueOf(listed[0]!);
    if (value === undefined) onMissing?.(listed[0]!);
    return value === undefined ? "" : pathSegment(value);
  });
}

function isStructArgument(
  entry: CommandEntry,
  name: string,
  value: unknown,
): Record<string, unknown> | undefined {
  if (entry.arguments.kind !== "positional" || !entry.arguments.names.includes(name))
    return undefined;
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function scalarOf(value: unknown): { value: ScalarValue } | undefined {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? { value }
    : undefined;
}
