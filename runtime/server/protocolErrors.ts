import {
  type CallToolResult,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import { cutText, shortened } from "../text/cutText.ts";
import type { SubscriptionLimits } from "../live/limitDefaults.ts";
import { overLimit, type LimitName } from "../live/subscriptionLimits.ts";
import type { FieldError } from "../uri/template.ts";

/**
 * JSON-RPC code of "over the command's rate limit": among JSON-RPC's implementation-defined
 * server errors (-32000..-32099), outside the part MCP reserves for itself (-32020..-32099), and
 * clear of what the SDK's transports use (-32000, -32001) and MCP's old resource-not-found (-32002).
 */
export const RATE_LIMITED = -32010;

/**
 * The one answer for a URI that names nothing the agent may read: unknown, ungranted,
 * confirm-only and tool-only commands all get it, byte for byte, so a read cannot probe the app.
 */
export function resourceNotFound(uri: string): ProtocolError {
  return new ResourceNotFoundError(uri);
}

export function invalidUri(uri: string, errors: FieldError[]): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid URI ${shortened(uri)}: ${describe(errors)}`,
    { uri: cutText(uri, MAX_DATA_URI), errors },
  );
}

/** `data.uri` of an invalid URI: whole for any URI a client builds, cut past 2 KiB. */
const MAX_DATA_URI = 2048;

export function unknownTool(name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`, { name });
}

/**
 * `tools/call` arguments the schema, a constraint or the command itself refuses: a tool error
 * (SEP-1303), which the model reads and corrects, naming every field; `structuredContent` holds
 * the same `errors` a read's `data.errors` does.
 */
export function invalidToolArguments(tool: string, errors: readonly FieldError[]): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `Invalid arguments for ${tool}: ${describe(errors)}; change them and call ${tool} again`,
      },
    ],
    structuredContent: { errors: [...errors] },
  };
}

/** A confirm command called by a client that cannot ask anyone (no form elicitation declared). */
export function cannotConfirm(tool: string): CallToolResult {
  return toolError(
    `${tool} needs a person's confirmation, and this client cannot ask for it (it declares no form elicitation); ask the user to run it in the app, or use a client that supports elicitation`,
  );
}

/** The person said no (or closed the question): nothing ran. */
export function declined(tool: string, action: "decline" | "cancel"): CallToolResult {
  return toolError(
    action === "decline"
      ? `The person declined to run ${tool}; nothing ran. Do not call it again unless they ask you to`
      : `The person dismissed the confirmation of ${tool} without answering; nothing ran`,
  );
}

/** A command that threw during `tools/call`: its message, as a tool error the model can read. */
export function toolFailed(error: unknown): CallToolResult {
  return toolError(failureMessage(error));
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}

export function rateLimited(command: string, retryAfterMs: number): ProtocolError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  return new ProtocolError(
    RATE_LIMITED,
    `Rate limit of ${command} reached; retry in ${seconds} s`,
    { command, retryAfterMs },
  );
}

/**
 * A command that threw during a read. Only the message crosses the wire: an error's own `code`
 * or `data` (a database driver's, say) must not pass for a JSON-RPC error of livecmd's.
 */
export function commandFailed(error: unknown): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, failureMessage(error));
}

/** What a failed command says, for a read's error and a tool call's error result alike. */
export function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describe(errors: readonly FieldError[]): string {
  return errors.map((error) => `${error.field}: ${error.message}`).join("; ");
}

/**
 * JSON-RPC's `-32020` (SEP-2243 HeaderMismatch) for a 2026-07-28 request whose `Mcp-Name` header
 * does not mirror the body. The SDK's own quotes the body's value twice, whole: a 3 MiB URI
 * would come back as 6 MiB.
 */
export function headerMismatch(field: string, bodyValue: string, header: string | undefined) {
  const quoted = shortened(bodyValue);
  const body =
    header === undefined
      ? `the body carries params.${field}=${JSON.stringify(quoted)} but the required Mcp-Name header is absent`
      : `the body carries params.${field}=${JSON.stringify(quoted)} but the Mcp-Name header names ${JSON.stringify(shortened(header))}`;
  return new ProtocolError(
    HEADER_MISMATCH,
    `Bad Request: the request headers and body disagree: ${body}`,
    { mismatch: { header: header === undefined ? "(missing)" : shortened(header), body } },
  );
}

/** SEP-2243's HeaderMismatch code, as the SDK answers it. */
const HEADER_MISMATCH = -32020;

/** The longest error answer a client gets; any longer one (the SDK's) is cut to its message. */
export const MAX_ERROR_ANSWER = 4096;

/** A JSON-RPC error as an HTTP answer, for the front door's own refusals. */
export function errorResponse(
  status: number,
  error: ProtocolError,
  id: string | number | null = null,
): Response {
  return new Response(errorAnswerText(error, id), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The JSON-RPC error answer's text: one line. */
export function errorAnswerText(error: ProtocolError, id: string | number | null = null): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined && { data: error.data }),
    },
  });
}

/** The SDK's refusal of a body over its limit (answered 413), word for word. */
export function payloadTooLarge(): ProtocolError {
  return new ProtocolError(
    SDK_TRANSPORT_REFUSAL,
    `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`,
  );
}

/** -32000, the SDK transports' code for a request refused before it reached a handler. */
export const SDK_TRANSPORT_REFUSAL = -32000;

/**
 * The refusal of an `initialize` over a session limit: a session ends with a DELETE of its
 * `Mcp-Session-Id`, or when it has been idle for `idleMs`.
 */
export function sessionLimitReached(
  limits: SubscriptionLimits,
  limit: LimitName,
  idleMs: number,
): ProtocolError {
  return overLimit(
    SDK_TRANSPORT_REFUSAL,
    limits,
    limit,
    (bound) =>
      `Session limit reached: ${bound}; end a session (DELETE with its Mcp-Session-Id) or reuse one; an idle session is closed after ${Math.round(idleMs / 1000)} s`,
  );
}

/**
 * An error answer over `MAX_ERROR_ANSWER` characters, as one that says the same in fewer: the
 * message cut, `data` dropped (the SDK's answers echo request fields whole in both).
 */
export function boundedErrorText(text: string): string {
  if (text.length <= MAX_ERROR_ANSWER) return text;
  let parsed: { id?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return cutText(text, MAX_ERROR_LINE_IN_ANSWER);
  }
  return JSON.stringify({
    jsonrpc: "2.0",
    id: parsed.id ?? null,
    error: {
      code:
        typeof parsed.error?.code === "number"
          ? parsed.error.code
          : ProtocolErrorCode.InternalError,
      message: cutText(String(parsed.error?.message ?? ""), MAX_ERROR_LINE_IN_ANSWER),
    },
  });
}

const MAX_ERROR_LINE_IN_ANSWER = 1000;
