import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  isLegacyRequest,
  readRequestBody,
  type AuthInfo,
  type ProtocolError,
} from "@modelcontextprotocol/server";
import { errorResponse } from "../errors/protocolErrors.ts";
import { parseError, payloadTooLarge } from "../errors/frontDoorErrors.ts";
import { mcpNameMismatch } from "./mcpNameHeader.ts";
import { isListenResumption } from "../listens/listenResume.ts";
import { invalidParams } from "./requestParams.ts";

/**
 * A handler of one era, given the verified principal (when the endpoint authenticates); the
 * modern one may be handed the body already read and parsed.
 */
export interface EraHandlers {
  modern(
    request: Request,
    read: { parsed: unknown } | undefined,
    auth: AuthInfo | undefined,
  ): Promise<Response>;
  legacy(request: Request, auth: AuthInfo | undefined): Promise<Response>;
}

/**
 * One HTTP endpoint for both eras: `createMcpHandler` serves 2026-07-28 and, with `legacy:
 * "reject"`, nothing else, so each request is routed on its era (the SDK's `isLegacyRequest`):
 * a non-POST is a 2025 session's (GET stream, DELETE) unless it resumes a listen, a POST by its
 * message. A body that is not JSON is -32700 here, whichever era it was meant for.
 */
export function routeByEra(
  handlers: EraHandlers,
): (request: Request, auth: AuthInfo | undefined) => Promise<Response> {
  return async (request, auth) => {
    if (isListenResumption(request)) return handlers.modern(request, undefined, auth);
    if (request.method !== "POST") return handlers.legacy(request, auth);
    const read = await readOnce(request);
    if (read === "too large") return errorResponse(413, payloadTooLarge());
    if (read === "not json") return errorResponse(400, parseError());
    if (!read)
      return (await isLegacyRequest(request))
        ? handlers.legacy(request, auth)
        : handlers.modern(request, undefined, auth);
    const malformed = malformedEnvelope(read.parsed);
    if (malformed) return errorResponse(400, malformed, idOf(read.parsed));
    if (read.parsed === undefined || (await isLegacyRequest(request, read.parsed)))
      return handlers.legacy(replay(request, read.text), auth);
    const mismatch = mcpNameMismatch(request, read.parsed);
    if (mismatch) return errorResponse(400, mismatch, idOf(read.parsed));
    return handlers.modern(request, read, auth);
  };
}

/**
 * The body of a JSON POST of declared length, read once: routing on the era, narrowing a listen
 * and serving the request then share the parsed message, where `isLegacyRequest(request)` and
 * the handler would each clone the request (a stream tee) and read and parse it again. Undefined
 * when the SDK should read the body itself: another content type (it answers 415), no declared
 * length, or one over its limit (it answers 413).
 */
async function readOnce(
  request: Request,
): Promise<{ text: string; parsed: unknown } | "too large" | "not json" | undefined> {
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (
    !isJsonContentType(request.headers.get("content-type")) ||
    !(length >= 0 && length <= DEFAULT_MAX_REQUEST_BODY_SIZE)
  )
    return undefined;
  const read = await readRequestBody(request, DEFAULT_MAX_REQUEST_BODY_SIZE);
  // Only a body longer than its declared length gets here: Node's parser stops at that length.
  if (read.tooLarge) return "too large";
  try {
    return {
      text: read.text,
      parsed: read.text.length === 0 ? undefined : (JSON.parse(read.text) as unknown),
    };
  } catch {
    return "not json";
  }
}

/**
 * The -32602 of a request whose params or `_meta` have the wrong shape, answered before the SDK
 * tells the eras apart: it cannot tell them for such a request (a 2025 session's would be
 * refused for lacking 2026-07-28 headers), and would call it no JSON-RPC message at all.
 */
function malformedEnvelope(message: unknown): ProtocolError | undefined {
  const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
  if (typeof method !== "string" || id === undefined || !isPlainObject(message)) return undefined;
  return invalidParams(method, (message as { params?: unknown }).params, "envelope");
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** A request like `request` whose body, already read, is `text` again (for the legacy sessions). */
function replay(request: Request, text: string): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: text,
    signal: request.signal,
  });
}
