import { ProtocolError, Server } from "@modelcontextprotocol/server";
import type { ValidateFunction } from "ajv";
import { echoCut, invalidRequestParams } from "../errors/protocolErrors.ts";
import { SKILL_REQUESTS_QUOTING_URI } from "./skillsHost.ts";
import type { JsonSchema } from "../../uri/template.ts";
import { fieldErrorsOf } from "../../validation/fieldMessages.ts";
import * as compiled from "./requestParamsValidators.ts";

const STRING = { type: "string" };
const URI_PARAMS: JsonSchema = { type: "object", required: ["uri"], properties: { uri: STRING } };
const PAGE_PARAMS: JsonSchema = { type: "object", properties: { cursor: STRING } };

/** A ref of the type `type`, for the `if` of what such a ref requires. */
function refOfType(type: string): JsonSchema {
  return { required: ["type"], properties: { type: { const: type } } };
}

/**
 * The params of the requests livecmd answers, as far as it reads them (anything else a request
 * carries is the SDK's business). Checked before the SDK's own parsing, which answers a wrong
 * type with -32603 and a multi-line zod dump.
 */
export const PARAMS: Readonly<Record<string, JsonSchema>> = {
  // The 2025 era's handshake (a session's second `initialize` reaches the SDK's own parsing).
  initialize: {
    type: "object",
    required: ["protocolVersion", "capabilities", "clientInfo"],
    properties: {
      protocolVersion: STRING,
      capabilities: { type: "object" },
      clientInfo: {
        type: "object",
        required: ["name", "version"],
        properties: { name: STRING, version: STRING },
      },
    },
  },
  "tools/list": PAGE_PARAMS,
  "resources/list": PAGE_PARAMS,
  "resources/templates/list": PAGE_PARAMS,
  "resources/read": URI_PARAMS,
  "resources/subscribe": URI_PARAMS,
  "resources/unsubscribe": URI_PARAMS,
  "tools/call": {
    type: "object",
    required: ["name"],
    // `task` (2025-11-25 task-augmented calls): the SDK's own parsing of a wrong type is a zod dump.
    properties: {
      name: STRING,
      arguments: { type: "object" },
      task: { type: "object", properties: { ttl: { type: "number" } } },
    },
  },
  "completion/complete": {
    type: "object",
    required: ["ref", "argument"],
    properties: {
      ref: {
        type: "object",
        required: ["type"],
        properties: { type: { enum: ["ref/resource", "ref/prompt"] }, uri: STRING, name: STRING },
        // A resource ref names its template by `uri`, a prompt ref its prompt by `name`.
        allOf: [
          { if: refOfType("ref/resource"), then: { required: ["uri"] } },
          { if: refOfType("ref/prompt"), then: { required: ["name"] } },
        ],
      },
      argument: {
        type: "object",
        required: ["name", "value"],
        properties: { name: STRING, value: STRING },
      },
      context: {
        type: "object",
        properties: { arguments: { type: "object", additionalProperties: STRING } },
      },
    },
  },
};

/**
 * What every request's params are, whatever its method, as the SDK's transports read them
 * before any handler: an object, whose `_meta` is an object with a string or integer
 * `progressToken`. The SDK refuses anything else as "not a valid JSON-RPC message" (-32600),
 * and its era routing then takes a 2025 session's request for a 2026-07-28 one.
 */
export const ENVELOPE: JsonSchema = {
  type: "object",
  properties: {
    _meta: { type: "object", properties: { progressToken: { type: ["string", "integer"] } } },
  },
};

/**
 * The export of `requestParamsValidators.ts` that validates `method`'s params ("envelope": every
 * request's): named after the first method of the same schema, which all of them share.
 */
export function validatorName(method: string): string {
  const schema = method === "envelope" ? ENVELOPE : PARAMS[method];
  const first = Object.keys(PARAMS).find((other) => PARAMS[other] === schema) ?? method;
  return first.replace(/\W/g, "_");
}

/**
 * The validators of these schemas, compiled ahead of time by ajv with the options of every
 * other validation (`test/unit/request-params-validators.test.ts` holds them to the schemas):
 * a server answers `initialize` before it loads ajv.
 */
const COMPILED = compiled as unknown as Readonly<Record<string, ValidateFunction>>;

/**
 * -32602 with one line naming each wrong param of a `method` request (`params.uri must be a
 * string`), the same in `data.errors`; undefined when its params are as livecmd reads them.
 * `scope`: the envelope every request shares, or the method's own params.
 */
export function invalidParams(
  method: string,
  params: unknown,
  scope: "envelope" | "method",
): ProtocolError | undefined {
  const name = scope === "envelope" ? "envelope" : Object.hasOwn(PARAMS, method) && method;
  if (!name) return undefined;
  const validate = COMPILED[validatorName(name)]!;
  if (validate(params ?? {})) return undefined;
  return invalidRequestParams(method, fieldErrorsOf(validate.errors ?? [], "params", "params."));
}

type Handler = Parameters<Server["_wrapHandler"]>[1];

/**
 * The SDK's `Server` with every request's params checked first (`invalidParams`), and the URI
 * the skills extension's handlers quote whole in their errors cut (`quotesCut`).
 * `_wrapHandler` is the SDK's hook for subclasses to wrap registered handlers (livecmd's and
 * the extension's alike); it wraps the SDK's own parsing, so this check runs before it.
 */
export class CheckedParamsServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    if (SKILL_REQUESTS_QUOTING_URI.has(method)) return quotesCut(wrapped);
    if (!Object.hasOwn(PARAMS, method)) return wrapped;
    return (request, ctx) => {
      const invalid = invalidParams(method, request.params, "method");
      if (invalid) throw invalid;
      return wrapped(request, ctx);
    };
  }
}

/** `handler`, with the request's `params.uri` cut wherever an error it throws quotes it (`echoCut`). */
function quotesCut(handler: Handler): Handler {
  return async (request, ctx) => {
    try {
      return await handler(request, ctx);
    } catch (error) {
      const uri = request.params?.uri;
      throw error instanceof ProtocolError && typeof uri === "string" ? echoCut(error, uri) : error;
    }
  };
}
