import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { shortened } from "../../text/cutText.ts";
import { refusal } from "./protocolErrors.ts";

// The refusals of the HTTP front door and the transports: before a request reaches a method
// (a host, an origin, a body, a session, a header that disagrees with the body).

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

/** A `Host` that is no `host[:port]`: the request names no server at all. */
export function hostMalformed(host: string): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `Bad Request: the Host ${JSON.stringify(shortened(host))} is not a host and port (RFC 9110: a name or an address, an optional :port, nothing else)`,
  );
}

/** How every refusal of an endpoint without auth begins, and the fix it names. */
const NO_AUTH =
  "Forbidden: this endpoint has no auth, so it answers only clients on its own machine";
const GIVE_IT_AUTH =
  "its operator can give it auth (staticTokens or jwtBearer; livecmd serve --tokens, --issuer)";

/** The front door's refusal of a client on another machine, by an endpoint without auth. */
export function peerRefused(address: string): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `${NO_AUTH}, and ${shortened(address)} is not; ${GIVE_IT_AUTH}`,
  );
}

/**
 * The front door's refusal, by an endpoint without auth, of a client whose address its server
 * did not tell (the `fetch` face given no `remote`).
 */
export function peerUnknown(): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `${NO_AUTH}, and its server did not tell who this client is; its operator can pass the client's address (mcp.fetch(request, { remote }): Hono's getConnInfo(c), Bun's server.requestIP(request), Deno's info.remoteAddr) or give it auth (staticTokens or jwtBearer)`,
  );
}

/** The front door's refusal, by an endpoint without auth, of a request a reverse proxy forwarded. */
export function proxiedRefused(header: string): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    `${NO_AUTH}, and this request came through a proxy (it carries ${header}) from whoever reached it; ${GIVE_IT_AUTH}`,
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

/** The SDK's refusal of a POST whose body is not declared JSON (answered 415), word for word. */
export function unsupportedMediaType(): ProtocolError {
  return refusal(
    SDK_TRANSPORT_REFUSAL,
    "Unsupported Media Type: Content-Type must be application/json",
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
