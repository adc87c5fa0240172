import {
  ProtocolError,
  ProtocolErrorCode,
  type CompleteRequest,
  type CompleteResult,
} from "@modelcontextprotocol/server";
import type { JsonSchema } from "../uri/template.ts";
import type { ServedApp } from "./servedApp.ts";

/** The most values one completion returns (the spec's cap); `total` and `hasMore` tell the rest. */
const MAX_VALUES = 100;

/**
 * `completion/complete` for a variable of a granted template, from what its schema knows: enum
 * constants, or `true`/`false` for a boolean, filtered by the typed prefix; nothing otherwise.
 */
export function complete(served: ServedApp, params: CompleteRequest["params"]): CompleteResult {
  const { ref, argument } = params;
  if (ref.type !== "ref/resource") {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown prompt ${JSON.stringify(ref.name)}: this server has no prompts`,
      { ref },
    );
  }
  const entry = served.catalog.readableByTemplate(ref.uri);
  const template = entry && served.catalog.template(entry);
  if (!template) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown resource template ${JSON.stringify(ref.uri)}: pass a uriTemplate exactly as resources/templates/list gives it`,
      { ref },
    );
  }
  const variable = template.variables.find((candidate) => candidate.name === argument.name);
  if (!variable) {
    const known = template.variables.map((candidate) => candidate.name).join(", ");
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Template ${ref.uri} has no variable ${JSON.stringify(argument.name)}; its variables are: ${known}`,
      { ref, argument: argument.name },
    );
  }
  const matches = candidatesOf(variable.schema).filter((value) => value.startsWith(argument.value));
  return {
    completion: {
      values: matches.slice(0, MAX_VALUES),
      total: matches.length,
      hasMore: matches.length > MAX_VALUES,
    },
  };
}

function candidatesOf(schema: JsonSchema): string[] {
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches))
    return [...new Set(branches.flatMap((branch: JsonSchema) => candidatesOf(branch)))];
  if (Array.isArray(schema.enum))
    return schema.enum.filter((value): value is string => typeof value === "string");
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes("boolean") ? ["true", "false"] : [];
}
