import {
  type CallToolResult,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  type JSONRPCErrorResponse,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import { ERROR_META_KEY } from "../../model/resultMeta.ts";
import { cutText, shortened } from "../../text/cutText.ts";
import type { SubscriptionLimits } from "../../live/limitDefaults.ts";
import type { LimitName } from "../../live/subscriptionLimits.ts";
import type { RefusalWire, WatchRefusal } from "../../live/watchRefusal.ts";
import type { FieldError } from "../../uri/template.ts";

// Every JSON-RPC error livecmd answers is built here, and every error answer it writes itself
// (an HTTP body, a message on a wire) is written by `errorMessage`; a build anywhere else fails
// test/unit/one-error-module.test.ts. What a request carried comes back cut (`shortened`, a
// field list by `listed`), and every error passes `withinCap` once, as it is built: no answer
// carries a client's input back whole, whatever field it came in.

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

/**
 * `tools/call` arguments the schema, a constraint or the command itself refuses: a tool error
 * (SEP-1303), which the model reads and corrects, naming every field; `_meta[ERROR_META_KEY]`
 * holds the same `errors` a read's `data.errors` does.
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
    _meta: { [ERROR_META_KEY]: listedData(errors) },
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

/**
 * Nobody answered the question within `timeoutMs`: nothing ran, as after a decline, and the
 * answer that comes later is not taken.
 */
export function unanswered(tool: string, timeoutMs: number): CallToolResult {
  return toolError(
    `Nobody answered the confirmation of ${tool} within ${Math.ceil(timeoutMs / 1000)} s; nothing ran. Ask the user before calling it again`,
  );
}

/** The client answered the question with an error, or with what no elicitation answers: nothing ran. */
export function confirmationFailed(tool: string, why: string): CallToolResult {
  return toolError(`The confirmation of ${tool} failed: ${why}; nothing ran`);
}

/** A 2026-07-28 yes sent again (a retry, a replay): it already ran the command once. */
export function confirmationSpent(tool: string): CallToolResult {
  return toolError(
    `This confirmation of ${tool} was already used: the command ran when it was first sent. To run it again, call ${tool} without requestState and ask the person again`,
  );
}

/** A command that threw during `tools/call`: its message, as a tool error the model can read. */
export function toolFailed(error: unknown): CallToolResult {
  return toolError(failureMessage(error));
}

/** A tool error the model reads: one text, cut to `MAX_ERROR_TEXT` (an app's message may quote anything). */
function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: cutText(message, MAX_ERROR_TEXT) }] };
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
function describe(errors: readonly FieldError[], separator = ": "): string {
  const { shown, more } = listed(errors);
  const described = shown.map((error) => `${error.field}${separator}${error.message}`).join("; ");
  return more > 0 ? `${described}; and ${more} more` : described;
}

/** `data.errors` (or a tool error's `_meta[ERROR_META_KEY]`) of the same field errors: those `listed` shows. */
function listedData(errors: readonly FieldError[]): { errors: FieldError[]; more?: number } {
  const { shown, more } = listed(errors);
  return more > 0 ? { errors: shown, more } : { errors: shown };
}

/**
 * The field errors an answer names: each field and message cut (a field can be a client's key,
 * a message can quote a value), and only as many as fit `MAX_LISTED_ERRORS` characters; `more`
 * counts the rest.
 */
function listed(errors: readonly FieldError[]): { shown: FieldError[]; more: number } {
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

/** The longest text of a tool error (`isError` result). */
const MAX_ERROR_TEXT = 3000;

/** A JSON-RPC error livecmd answers, kept within the cap (`withinCap`). */
function refusal(code: number, message: string, data?: unknown): ProtocolError {
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
  return refusal(HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${body}`, {
    mismatch: { header: header === undefined ? "(missing)" : shortened(header), body },
  });
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

/** JSON-RPC's answer to a body that is not JSON: there is no request to give an id to. */
export function parseError(): ProtocolError {
  return refusal(ProtocolErrorCode.ParseError, "Parse error: the request body is not JSON");
}

/** The front door's refusal of a `Host` this server does not answer to (DNS rebinding). */
export function hostRefused(host: string | null): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `Forbidden: the Host ${JSON.stringify(shortened(host ?? ""))} is not one this server answers to; its operator can allow it (allowedHosts or publicUrl; livecmd serve --allowed-host, --public-url)`,
  );
}

/** The front door's refusal of a client on another machine, by an endpoint without auth. */
export function peerRefused(address: string): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `Forbidden: this endpoint has no auth, so it answers only clients on its own machine, and ${shortened(address)} is not; its operator can give it auth (staticTokens or jwtBearer; livecmd serve --tokens, --issuer)`,
  );
}

/** A request the endpoint failed on unexpectedly (the error goes to `onerror`), as the SDK's Node adapter answers it. */
export function internalError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, "Internal server error");
}

/** A request to an endpoint that was closed (`close()`): the app's server may still be up. */
export function endpointClosed(): ProtocolError {
  return new ProtocolError(
    SDK_TRANSPORT_REFUSAL,
    "Service unavailable: this MCP endpoint has shut down",
  );
}

/** The front door's refusal of a browser's `Origin` that is not this server's own. */
export function originRefused(origin: string): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `Forbidden: requests from the origin ${JSON.stringify(shortened(origin))} are not allowed`,
  );
}

/**
 * A 2025-era `Mcp-Session-Id` this server does not know, or that another principal opened: the
 * SDK's -32001 for a session it does not have, the id cut.
 */
export function sessionNotFound(sessionId: string): ProtocolError {
  return refusal(
    SESSION_NOT_FOUND,
    `Session ${sessionId.slice(0, 100)} not found; initialize again`,
  );
}

/**
 * The refusal of a listen's `Last-Event-ID` this endpoint cannot resume (another key, another
 * principal, altered): the SDK's client then ends the listen, and its caller opens it again.
 */
export function listenNotResumable(): ProtocolError {
  return refusal(
    ProtocolErrorCode.InvalidRequest,
    "This listen cannot be resumed here: open it again (subscriptions/listen)",
  );
}

/** -32001, the SDK's 2025 transport's code for a session it does not have. */
const SESSION_NOT_FOUND = -32001;

/** A 2025-era request other than `initialize` without the `Mcp-Session-Id` header. */
export function sessionRequired(): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    "Bad Request: a 2025-era request needs the Mcp-Session-Id header that initialize returned",
  );
}

/**
 * A 2025 client's answer that reached another replica than the one whose call waits for it, too
 * long to relay there (a NOTIFY payload): that call gets this error answer instead, and ends.
 */
export function answerTooLong(bytes: number, max: number): ProtocolError {
  return refusal(
    ProtocolErrorCode.InvalidRequest,
    `the answer is ${bytes} bytes, more than the ${max} one replica relays to another`,
  );
}

/** The SDK's refusal of a body over its limit (answered 413), word for word. */
export function payloadTooLarge(): ProtocolError {
  return refusal(
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
    limit,
    limits[limit],
    (bound) =>
      `Session limit reached: ${bound}; end a session (DELETE with its Mcp-Session-Id) or reuse one; an idle session is closed after ${Math.round(idleMs / 1000)} s`,
  );
}

/** -32602 for a subscription over a limit: `data.limit` is its value, `data.scope` which limit it is. */
export function limitReached({ limit, value, what }: WatchRefusal): ProtocolError {
  return overLimit(
    ProtocolErrorCode.InvalidParams,
    limit,
    value,
    (bound) => `Subscription limit reached: ${bound}; end a subscription before ${what}`,
  );
}

/**
 * A refusal for going over `limit` (of `value`), worded by `message` around "<what the limit
 * bounds> is <value>"; every limit error carries `data: { limit, scope }` alike.
 */
function overLimit(
  code: number,
  limit: LimitName,
  value: number,
  message: (bound: string) => string,
): ProtocolError {
  return refusal(code, message(`${LIMIT_WORDS[limit]} is ${value}`), {
    limit: value,
    scope: limit,
  });
}

/** The live room's and its taps' answers on the wire (live/ words none itself). */
export const LIVE_REFUSALS: RefusalWire = {
  limitReached,
  errorMessage,
  errorResponse,
  listenNotResumable,
};

const LIMIT_WORDS: Record<LimitName, string> = {
  perConnection: "the number of URIs one connection may watch",
  perPrincipal: "the number of URIs one principal (or connection without auth) may watch",
  total: "the number of URIs this server watches in all",
  listensPerPrincipal:
    "the number of listens one principal (or connection without auth) may hold open",
  listensTotal: "the number of listens this server holds open",
  sessionsPerPrincipal:
    "the number of 2025-era sessions one principal (or connection without auth) may hold open",
  sessionsTotal: "the number of 2025-era sessions this server holds open",
};

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

/**
 * The watch tool's refusal of URIs a read would refuse (a typo, a command the principal may not
 * read): a tool error naming each, with its read's error, so the model fixes them all at once;
 * `_meta[ERROR_META_KEY].errors` holds them as `{ uri, message }`, cut and as many as fit, as
 * `listed` cuts field errors (`more` counts the rest). Nothing was watched.
 */
export function unwatchableUris(
  tool: string,
  refusals: readonly { uri: string; error: unknown }[],
): CallToolResult {
  const { shown, more } = listed(
    refusals.map(({ uri, error }) => ({ field: uri, message: failureMessage(error) })),
  );
  const errors = shown.map(({ field, message }) => ({ uri: field, message }));
  const each = errors.map(({ uri, message }) => `${uri}: ${message}`).join("; ");
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `Cannot watch ${refusals.length === 1 ? "this URI" : `these ${refusals.length} URIs`}, so nothing is watched: ${each}${more > 0 ? `; and ${more} more` : ""}. Watch only URIs resources/read accepts (an expanded template of resources/templates/list), and call ${tool} again`,
      },
    ],
    _meta: { [ERROR_META_KEY]: more > 0 ? { errors, more } : { errors } },
  };
}

/** The watch tool over a limit (`limitReached`'s error): a tool error with its `limit` and `scope`. */
export function watchLimitReached(tool: string, refused: ProtocolError): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${refused.message}; nothing is watched. Call ${tool} with fewer URIs, or when another watch has answered`,
      },
    ],
    _meta: { [ERROR_META_KEY]: refused.data },
  };
}
