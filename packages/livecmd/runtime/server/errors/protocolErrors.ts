import {
  type JSONRPCErrorResponse,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import { cutText, shortened } from "../../text/cutText.ts";
import type { FieldError } from "../../uri/template.ts";

// Every JSON-RPC error livecmd answers is built in this room (errors/), by `refusal` here, and
// every error answer it writes itself (an HTTP body, a message on a wire) is written by
// `errorMessage`; a build anywhere else fails test/unit/one-error-module.test.ts. Here: the wire
// form and a method's refusals; a tool's errors in `toolErrors.ts`, the front door's and the
// transports' in `frontDoorErrors.ts`, the limits' in `limitErrors.ts`. What a request carried comes back cut (`shortened`, a
// field list by `listed`), and every error passes `withinCap` once, as it is built: no answer
// carries a client's input back whole, whatever field it came in.

/**
 * JSON-RPC code of "over the command's rate limit": among JSON-RPC's implementation-defined
 * server errors (-32000..-32099), outside the part MCP reserves for itself (-32020..-32099), and
 * clear of what the SDK's transports use (-32000, -32001) and MCP's old resource-not-found (-32002).
 */
export const RATE_LIMITED = -32010;

/**
 * JSON-RPC code of "the bearer token this request came with no longer verifies": revoked or
 * expired while the request waited (the watch tool). Beside `RATE_LIMITED`, for the same reasons.
 */
export const TOKEN_ENDED = -32011;

/**
 * The one answer for a URI that names nothing the agent may read: unknown, ungranted,
 * confirm-only and tool-only commands all get it, byte for byte, so a read cannot probe the app.
 */
export function resourceNotFound(uri: string): ProtocolError {
  const echoed = cutText(uri, MAX_DATA_URI);
  return withinCap(new ResourceNotFoundError(echoed, `Resource not found: ${shortened(uri)}`));
}

export function invalidUri(uri: string, errors: readonly FieldError[]): ProtocolError {
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Invalid URI ${shortened(uri)}: ${describe(errors)}`,
    { uri: cutText(uri, MAX_DATA_URI), ...listedData(errors) },
  );
}

/** `data.uri` of an invalid URI: whole for any URI a client builds, cut past 2 KiB. */
const MAX_DATA_URI = 2048;

/**
 * An error one of the SDK's own handlers threw (the skills extension's), which quotes what the
 * request carried (`echoed`, its URI) whole: the same error with `echoed` cut as livecmd's own
 * refusals cut it, `shortened` in the message, `data.uri` as `resourceNotFound`'s.
 */
export function echoCut(error: ProtocolError, echoed: string): ProtocolError {
  const { code, message, data } = error;
  const quoted = data as { uri?: unknown } | undefined;
  return refusal(
    code,
    message.replaceAll(echoed, shortened(echoed)),
    quoted?.uri === echoed ? { ...quoted, uri: cutText(echoed, MAX_DATA_URI) } : data,
  );
}

export function unknownTool(name: string): ProtocolError {
  const echoed = shortened(name);
  return refusal(ProtocolErrorCode.InvalidParams, `Unknown tool: ${echoed}`, { name: echoed });
}

/** A listing cursor this server issued for a list that has changed since. */
export function staleCursor(cursor: string): ProtocolError {
  const echoed = shortened(cursor);
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Stale cursor ${JSON.stringify(echoed)}: the list changed since it was issued; list again without a cursor`,
    { cursor: echoed },
  );
}

/** A listing cursor this server never issued (or one past the list's end). */
export function invalidCursor(cursor: string): ProtocolError {
  const echoed = shortened(cursor);
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Invalid cursor ${JSON.stringify(echoed)}: this server never issued it; list again without a cursor`,
    { cursor: echoed },
  );
}

/** `completion/complete` of a prompt's argument: livecmd serves no prompts. */
export function unknownPrompt(ref: { name: string }): ProtocolError {
  const name = shortened(ref.name);
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Unknown prompt ${JSON.stringify(name)}: this server has no prompts`,
    // The ref as livecmd read it: anything else the client put in it is not sent back.
    { ref: { type: "ref/prompt", name } },
  );
}

/** `completion/complete` of a template the agent may not read, or that does not exist. */
export function unknownTemplate(ref: { uri: string }): ProtocolError {
  const uri = shortened(ref.uri);
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Unknown resource template ${JSON.stringify(uri)}: pass a uriTemplate exactly as resources/templates/list gives it`,
    { ref: { type: "ref/resource", uri } },
  );
}

/** `completion/complete` of a variable the template lacks; `known`: the ones it has. */
export function unknownVariable(
  ref: { uri: string },
  variable: string,
  known: readonly string[],
): ProtocolError {
  const argument = shortened(variable);
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Template ${ref.uri} has no variable ${JSON.stringify(argument)}; its variables are: ${known.join(", ")}`,
    { ref: { type: "ref/resource", uri: ref.uri }, argument },
  );
}

/** A `method` request whose params have the wrong shape: one line naming each wrong param. */
export function invalidRequestParams(method: string, errors: readonly FieldError[]): ProtocolError {
  return refusal(
    ProtocolErrorCode.InvalidParams,
    `Invalid params for ${method}: ${describe(errors, " ")}`,
    listedData(errors),
  );
}

/** A waiting call whose token was revoked or expired: it ends at once, and answers no data. */
export function tokenEnded(): ProtocolError {
  return refusal(
    TOKEN_ENDED,
    "The bearer token this call came with was revoked or expired while it waited, so it ended without an answer; call again with a valid token",
  );
}

export function rateLimited(command: string, retryAfterMs: number): ProtocolError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  return refusal(RATE_LIMITED, `Rate limit of ${command} reached; retry in ${seconds} s`, {
    command,
    retryAfterMs,
  });
}

/**
 * A command that threw during a read. Only the message crosses the wire: an error's own `code`
 * or `data` (a database driver's, say) must not pass for a JSON-RPC error of livecmd's.
 */
export function commandFailed(error: unknown): ProtocolError {
  return refusal(ProtocolErrorCode.InternalError, failureMessage(error));
}

/** What a failed command says, for a read's error and a tool call's error result alike. */
export function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The field errors in a message, one after another (`field: message; ...`), as `listed` cuts them. */
export function describe(errors: readonly FieldError[], separator = ": "): string {
  const { shown, more } = listed(errors);
  const described = shown.map((error) => `${error.field}${separator}${error.message}`).join("; ");
  return more > 0 ? `${described}; and ${more} more` : described;
}

/** `data.errors` (or a tool error's `_meta[ERROR_META_KEY]`) of the same field errors: those `listed` shows. */
export function listedData(errors: readonly FieldError[]): { errors: FieldError[]; more?: number } {
  const { shown, more } = listed(errors);
  return more > 0 ? { errors: shown, more } : { errors: shown };
}

/**
 * The field errors an answer names: each field and message cut (a field can be a client's key,
 * a message can quote a value), and only as many as fit `MAX_LISTED_ERRORS` characters; `more`
 * counts the rest.
 */
export function listed(errors: readonly FieldError[]): { shown: FieldError[]; more: number } {
  const shown: FieldError[] = [];
  let length = 0;
  for (const error of errors) {
    const cut = {
      field: shortened(error.field),
      message: cutText(error.message, MAX_FIELD_MESSAGE),
    };
    length += cut.field.length + cut.message.length;
    if (shown.length > 0 && length > MAX_LISTED_ERRORS) break;
    shown.push(cut);
  }
  return { shown, more: errors.length - shown.length };
}

/** The longest field error message an answer quotes. */
const MAX_FIELD_MESSAGE = 300;

/** How many characters of field errors an answer lists; they come twice (message and data). */
const MAX_LISTED_ERRORS = 1000;

/** A JSON-RPC error livecmd answers, kept within the cap (`withinCap`). */
export function refusal(code: number, message: string, data?: unknown): ProtocolError {
  return withinCap(new ProtocolError(code, message, data));
}

/**
 * `error` as built, when its answer fits `MAX_ERROR_ANSWER` with room for the envelope
 * (`jsonrpc` and an id); otherwise the same code with its message cut and no `data`. The
 * builders above cut what they echo, so only an app's own long message (a command that threw)
 * or an unforeseen echo gets here.
 */
function withinCap(error: ProtocolError): ProtocolError {
  const { code, message, data } = error;
  if (JSON.stringify({ code, message, data }).length <= MAX_ERROR_BODY) return error;
  return new ProtocolError(code, cutText(message, MAX_ERROR_LINE_IN_ANSWER));
}

/** The error object's share of `MAX_ERROR_ANSWER`: the rest is `{"jsonrpc":"2.0","id":…}`. */
const MAX_ERROR_BODY = 3900;

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
  return JSON.stringify(errorMessage(error, id));
}

/** The JSON-RPC error answer to request `id` (null when there is no request to answer). */
export function errorMessage(
  error: ProtocolError,
  id: string | number | null = null,
): JSONRPCErrorResponse {
  return {
    jsonrpc: "2.0",
    // JSON-RPC answers an unreadable request with a null id; the SDK's type leaves it out.
    id: id as string | number,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined && { data: error.data }),
    },
  };
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
  const { id, error } = parsed;
  return errorAnswerText(
    new ProtocolError(
      typeof error?.code === "number" ? error.code : ProtocolErrorCode.InternalError,
      cutText(String(error?.message ?? ""), MAX_ERROR_LINE_IN_ANSWER),
    ),
    typeof id === "string" || typeof id === "number" ? id : null,
  );
}

const MAX_ERROR_LINE_IN_ANSWER = 1000;
