import type { AuthInfo } from "@modelcontextprotocol/server";
import {
  authenticate,
  metadataUrlOf,
  protectedResourceMetadata,
  tokenInQuery,
  type HttpAuth,
} from "./auth/httpAuth.ts";
import { principalOf } from "./auth/principal.ts";
import { isEventStream } from "./eventStream.ts";
import { boundedErrorText, errorResponse, hostRefused, originRefused } from "./protocolErrors.ts";
import { currentRequest } from "./requestContext.ts";
import { isListenResumption } from "./sdkAdapter/listenResume.ts";

export const MCP_PATH = "/mcp";

/** Host names that are this machine: what a loopback endpoint answers to. */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

export interface FrontOptions {
  /**
   * This endpoint's URL as clients reach it (its RFC 8707 resource, the tokens' audience);
   * undefined when it listens on every interface and no public URL was given: it then has no
   * one URL to advertise, and checks tokens against the URL each request names.
   */
  resource: URL | undefined;
  /** The port it listens on: loopback origins are compared with it. */
  port: number;
  auth: HttpAuth | undefined;
  /** Host names, besides loopback and the resource's, that requests may name in `Host`. */
  allowedHosts: readonly string[];
  /** Origins (`scheme://host:port`), besides loopback's and the resource's, a browser may send. */
  allowedOrigins: readonly string[];
  /** Where an outage of the token issuer is told, once per outage. */
  onerror: (error: Error) => void;
}

type Serve = (request: Request, auth: AuthInfo | undefined) => Promise<Response>;

/**
 * Everything a request passes before it reaches MCP, in order: the path (`/mcp`, and the
 * protected-resource metadata when the endpoint authenticates), `Host` against DNS rebinding,
 * `Origin` against cross-site requests (with its port), the method (405 with `Allow`), no token
 * in the query string, and the bearer token. Once the token is checked, the request being
 * served (`asNewRequest`, begun by the caller) names its principal in log lines. Error answers
 * are bounded.
 */
export function frontDoor(
  options: FrontOptions,
  serve: Serve,
): (request: Request) => Promise<Response> {
  const { resource } = options;
  const hosts = new Set(
    [...LOOPBACK_HOSTS, ...(resource ? [resource.hostname] : []), ...options.allowedHosts].map(
      (host) => host.toLowerCase(),
    ),
  );
  const origins = allowedOriginsOf(options);
  const metadataPath = metadataUrlOf(resource ?? new URL(MCP_PATH, "http://localhost")).pathname;
  return async (request) => {
    const url = new URL(request.url);
    if (
      options.auth &&
      (url.pathname === metadataPath || url.pathname === "/.well-known/oauth-protected-resource")
    ) {
      if (request.method !== "GET") return methodNotAllowed("GET");
      return resource
        ? Response.json(protectedResourceMetadata(options.auth, resource))
        : unknownResource();
    }
    if (url.pathname !== MCP_PATH)
      return new Response(`Not found: the MCP endpoint is ${MCP_PATH}\n`, {
        status: 404,
        headers: { "content-type": "text/plain" },
      });
    const refused =
      hostRefusal(request, hosts) ??
      originRefusal(request, origins) ??
      methodRefusal(request) ??
      queryTokenRefusal(url);
    if (refused) return refused;
    let principal: AuthInfo | undefined;
    if (options.auth) {
      const checked = await authenticate(
        request,
        options.auth,
        resource ?? new URL(MCP_PATH, url),
        resource !== undefined,
        options.onerror,
      );
      if (checked instanceof Response) return checked;
      principal = checked;
      const context = currentRequest();
      if (context) context.principal = principalOf(checked);
    }
    const response = await serve(request, principal);
    if (isEventStream(response)) return response;
    return response.status >= 400 ? bounded(response) : response;
  };
}

/**
 * The origins a browser page may call the endpoint from: loopback's own (port included), the
 * public URL's, and those the server was told. The front door refuses every other; CORS answers
 * these (`corsPolicy`).
 */
export function allowedOriginsOf(
  options: Pick<FrontOptions, "resource" | "port" | "allowedOrigins">,
): ReadonlySet<string> {
  return new Set([
    ...LOOPBACK_HOSTS.map((host) => `http://${host}:${options.port}`),
    ...(options.resource ? [options.resource.origin] : []),
    ...options.allowedOrigins,
  ]);
}

/** An error answer cut to `MAX_ERROR_ANSWER`: a refusal never carries the request back whole. */
async function bounded(response: Response): Promise<Response> {
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(boundedErrorText(text), { status: response.status, headers });
}

function hostRefusal(request: Request, hosts: ReadonlySet<string>): Response | undefined {
  const host = request.headers.get("host");
  const hostname = host === null ? undefined : hostnameOf(host);
  if (hostname !== undefined && hosts.has(hostname)) return undefined;
  return errorResponse(403, hostRefused(host));
}

/** A browser's `Origin` must be this server's own, port included; clients that are no browser send none. */
function originRefusal(request: Request, origins: ReadonlySet<string>): Response | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || origins.has(origin)) return undefined;
  return errorResponse(403, originRefused(origin));
}

/**
 * POST carries every request; GET (the push stream) and DELETE (the end) exist only for a 2025
 * session, so without its `Mcp-Session-Id` they are not allowed (as on the 2026-07-28 era),
 * but for the GET that resumes a 2026-07-28 listen stream.
 */
function methodRefusal(request: Request): Response | undefined {
  if (request.method === "POST" || isListenResumption(request)) return undefined;
  if (request.method === "GET" || request.method === "DELETE") {
    return request.headers.has("mcp-session-id") ? undefined : methodNotAllowed("POST");
  }
  return methodNotAllowed("GET, POST, DELETE");
}

function queryTokenRefusal(url: URL): Response | undefined {
  return url.searchParams.has("access_token") ? tokenInQuery() : undefined;
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The metadata of an endpoint that listens on every interface and was told no public URL. */
function unknownResource(): Response {
  return new Response(
    "Not found: this server listens on every interface and was given no public URL to advertise; start it with --public-url\n",
    { status: 404, headers: { "content-type": "text/plain" } },
  );
}

function methodNotAllowed(allow: string): Response {
  return new Response(`Method not allowed: use ${allow}\n`, {
    status: 405,
    headers: { allow, "content-type": "text/plain" },
  });
}
