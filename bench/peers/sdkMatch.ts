import { UriTemplate } from "@modelcontextprotocol/server";
import type { JsonSchema, TemplateVariable } from "../../packages/livecmd/runtime/uri/index.ts";

type Convert = (raw: string) => unknown;

/** Marks a value a conversion rejected: `undefined` is a legitimate "absent". */
const INVALID = Symbol("invalid");

/**
 * What a hand-registered SDK resource template does to read a URI: `UriTemplate.match`, then
 * `decodeURIComponent` and a `Number`/enum check per variable, as its read callback must.
 * The template and the converters are built once, as a server would at registration.
 * Returns the typed variables, or `undefined` when the URI does not match or a value is bad.
 */
export function sdkParser(
  uriTemplate: string,
  variables: readonly TemplateVariable[],
): (uri: string) => Record<string, unknown> | undefined {
  const template = new UriTemplate(uriTemplate);
  const converters = variables.map(
    (variable) => [variable.name, converterFor(variable.schema)] as const,
  );
  return (uri) => {
    const match = template.match(uri);
    if (!match) return undefined;
    const vars: Record<string, unknown> = {};
    try {
      for (const [name, convert] of converters) {
        const raw = match[name];
        if (raw === undefined) continue;
        if (typeof raw !== "string") return undefined;
        const value = convert(decodeURIComponent(raw));
        if (value === INVALID) return undefined;
        vars[name] = value;
      }
    } catch {
      return undefined; // decodeURIComponent: a malformed escape
    }
    return vars;
  };
}

function converterFor(schema: JsonSchema): Convert {
  if (Array.isArray(schema.enum)) {
    const constants: unknown[] = schema.enum;
    return (raw) => (constants.includes(raw) ? raw : INVALID);
  }
  switch (schema.type) {
    case "integer":
      return (raw) => {
        const value = Number(raw);
        return raw !== "" && Number.isSafeInteger(value) ? value : INVALID;
      };
    case "number":
      return (raw) => {
        const value = Number(raw);
        return raw !== "" && Number.isFinite(value) ? value : INVALID;
      };
    case "boolean":
      return (raw) => (raw === "true" ? true : raw === "false" ? false : INVALID);
    case "string":
      return (raw) => raw;
    default:
      throw new Error(`no conversion for schema ${JSON.stringify(schema)}`);
  }
}
