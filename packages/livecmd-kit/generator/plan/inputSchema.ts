import type { ArgumentShape } from "livecmd/internal";
import type { JsonSchema, ParamDecl } from "../model.ts";
import { isStruct } from "./scalar.ts";

/**
 * The tool's published `inputSchema` and how its arguments map back to parameters: one property
 * per parameter, except a command whose single parameter is a struct, whose schema is that struct.
 * A parameter is required unless it is optional or a struct whose fields are all optional, which
 * a call may leave out as a URI may (the handler then gets `{}`).
 */
export function planInputSchema(params: ParamDecl[]): {
  inputSchema: JsonSchema;
  arguments: ArgumentShape;
} {
  const [only] = params;
  if (params.length === 1 && only && isStruct(only.schema)) {
    return { inputSchema: only.schema, arguments: { kind: "object" } };
  }
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
    arguments: {
      kind: "positional",
      names: params.map((param) => param.name),
      ...(emptyIfAbsent.length > 0 && { emptyIfAbsent }),
    },
  };
}
