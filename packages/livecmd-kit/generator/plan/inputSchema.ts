import type { ArgumentShape } from "livecmd/internal";
import type { JsonSchema, ParamDecl } from "../model.ts";
import { isStruct } from "./scalar.ts";

/**
 * The tool's published `inputSchema` and how its arguments map back to parameters: one property
 * per parameter, except a command whose single parameter is a struct, whose schema is that struct.
 */
export function planInputSchema(params: ParamDecl[]): {
  inputSchema: JsonSchema;
  arguments: ArgumentShape;
} {
  const [only] = params;
  if (params.length === 1 && only && isStruct(only.schema)) {
    return { inputSchema: only.schema, arguments: { kind: "object" } };
  }
  return {
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(params.map((param) => [param.name, param.schema])),
      required: params.filter((param) => !param.optional).map((param) => param.name),
      additionalProperties: false,
    },
    arguments: { kind: "positional", names: params.map((param) => param.name) },
  };
}
