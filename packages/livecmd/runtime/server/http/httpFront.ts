import type { AuthInfo } from "@modelcontextprotocol/server";
import {
  authenticate,
  metadataUrlOf,
  protectedResourceMetadata,
  tokenInQuery,
  type HttpAuth,
} from "../auth/httpAuth.ts";
import { principalOf } from "../../model/principal.ts";
import { isEventStream } from "../streams/eventStream.ts";
import type { OriginAllowed } from "./corsPolicy.ts";
import { isLoopback } from "./ownHostNames.ts";
import { boundedErrorText, errorResponse } from "../errors/protocolErrors.ts";
import {
  hostRefused,
  originRefused,
  peerRefused,
  peerUnknown,
  proxiedRefused,
} from "../errors/frontDoorErrors.ts";
import { currentRequest } from "../log/requestContext.ts";
import { isListenResumption } from "../listens/listenResume.ts";

/** Where RFC 9728 protected-resource metadata documents are, under the server's root. */
const METADATA_ROOT = "/.well-known/oauth-protected-resource";

/** Host names that are this machine: what a loopback endpoint answers to. */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

export interface FrontOptions {
  /**
   * This endpoint's URL as clients reach it (its RFC 8707 resource, the tokens' audience);
   * undefined when it was given none and has no one URL (it listens on every interface, or is
   * mounted in an app's server): it then advertises none, and checks tokens against the URL
   * each request names.
   */
  resource: URL | undefined;
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
 * Everything a request passes before it reaches MCP, in order: the protected-resource metadata
 * when the endpoint authenticates (any other path is the endpoint: whoever routed the request
 * here chose it), the client's address (without auth, only this machine's), `Host` against DNS
 * rebinding, `Origin` against cross-site requests (with its port), the method (405 with
 * `Allow`), no token in the query string, and the bearer token. Once the token is checked, the
 * request being served (`asNewRequest`, begun by the caller) names its principal in log lines.
 * Error answers are bounded.
 */
export function frontDoor(
  options: FrontOptions,
  serve: Serve,
): (request: Request) => Promise<Response> {
  const { resource, auth } = options;
  const hosts = new Set(
    [...LOOPBACK_HOSTS, ...(resource ? [resource.hostname] : []), ...options.allowedHosts].map(
      (host) => host.toLowerCase(),
    ),
  );
  const allowed = originAllowed(options);
  return async (request) => {
    const url = new URL(request.url);
    if (auth && isMetadataPath(url.pathname)) return metadataAnswer(request, url, auth, resource);
    const refused =
      (auth ? undefined : (peerRefusal() ?? proxiedRefusal(request))) ??
      hostRefusal(request, hosts) ??
      originRefusal(request, allowed) ??
      methodRefusal(request) ??
      queryTokenRefusal(url);
    if (refused) return refused;
    let principal: AuthInfo | undefined;
    if (auth) {
      // Without a URL of its own, the endpoint is the one the request was sent to.
      const at = resource ?? new URL(url.pathname, url);
      const checked = await authenticate(
        request,
        auth,
        at,
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

/** Whether `pathname` is where a protected-resource metadata document is asked for. */
export function isMetadataPath(pathname: string): boolean {
  return pathname === METADATA_ROOT || pathname.startsWith(`${METADATA_ROOT}/`);
}

/**
 * Which pages may call the endpoint: those of the public URL's origin and of `allowedOrigins`,
 * and on loopback a page of this same server: a loopback name at the port the request was sent
 * to (its `Host`'s). The front door refuses every other; CORS answers these (`corsPolicy`).
 */
export function originAllowed(
  options: Pick<FrontOptions, "resource" | "allowedOrigins">,
): OriginAllowed {
  const listed = new Set([
    ...(options.resource ? [options.resource.origin] : []),
    ...options.allowedOrigins,
  ]);
  return (origin, host) => listed.has(origin) || sameLoopbackServer(origin, host);
}

function sameLoopbackServer(origin: string, host: string | null): boolean {
  if (host === null || !origin.startsWith("http://")) return false;
  const page = httpUrlOf(origin);
  const target = httpUrlOf(`http://${host}`);
  return (
    page !== undefined &&
    target !== undefined &&
    page.origin === origin &&
    LOOPBACK_HOSTS.includes(page.hostname) &&
    page.port === target.port
  );
}

function httpUrlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * The metadata document (RFC 9728) at the endpoint's metadata URL or the root one; 404 for
 * another endpoint's, and, when the endpoint has no one URL, for every one.
 */
function metadataAnswer(
  request: Request,
  url: URL,
  auth: HttpAuth,
  resource: URL | undefined,
): Response {
  if (request.method !== "GET") return methodNotAllowed("GET");
  if (!resource) return unknownResource();
  if (url.pathname !== METADATA_ROOT && url.pathname !== metadataUrlOf(resource).pathname)
    return new Response(`Not found: this endpoint's metadata is at ${metadataUrlOf(resource)}\n`, {
      status: 404,
      headers: { "content-type": "text/plain" },
    });
  return Response.json(protectedResourceMetadata(auth, resource));
}

/** An error answer cut to `MAX_ERROR_ANSWER`: a refusal never carries the request back whole. */
async function bounded(response: Response): Promise<Response> {
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(boundedErrorText(text), { status: response.status, headers });
}

/**
 * An endpoint without auth answers this machine alone: a client elsewhere is refused by the
 * address the server's own socket told (an app's server may listen on every interface, and a
 * client can name any `Host`), and a client whose address the server did not tell (a `fetch`
 * face given no `remote`: Next.js, Bun and Deno listen on every interface) is refused too.
 */
function peerRefusal(): Response | undefined {
  const address = currentRequest()?.address;
  if (address === undefined) return errorResponse(403, peerUnknown());
  return isLoopback(address) ? undefined : errorResponse(403, peerRefused(address));
}

/**
 * The headers a reverse proxy adds to what it forwards (nginx's usual `proxy_set_header` lines,
 * Caddy, Traefik, Apache, HAProxy, Envoy and cloud balancers by default).
 */
const FORWARDED_BY_PROXY = [
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "via",
];

/**
 * A proxy on this machine passes the peer check (its socket is loopback) for every client that
 * reaches the proxy: an endpoint without auth refuses what a proxy says it forwarded.
 */
function proxiedRefusal(request: Request): Response | undefined {
  const header = FORWARDED_BY_PROXY.find((name) => request.headers.has(name));
  return header === undefined ? undefined : errorResponse(403, proxiedRefused(header));
}

function hostRefusal(request: Request, hosts: ReadonlySet<string>): Response | undefined {
  const host = request.headers.get("host");
  const hostname = host === null ? undefined : hostnameOf(host);
  if (hostname !== undefined && hosts.has(hostname)) return undefined;
  return errorResponse(403, hostRefused(host));
}

/** A browser's `Origin` must be one `originAllowed` allows; clients that are no browser send none. */
function originRefusal(request: Request, allowed: OriginAllowed): Response | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || allowed(origin, request.headers.get("host"))) return undefined;
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

/** The metadata of an endpoint that has no one URL (every interface, or mounted) and was told none. */
function unknownResource(): Response {
  return new Response(
    "Not found: this server listens on every interface or is mounted in another, and was given no public URL to advertise; start it with --public-url (mounted: pass publicUrl)\n",
    { status: 404, headers: { "content-type": "text/plain" } },
  );
}

function methodNotAllowed(allow: string): Response {
  return new Response(`Method not allowed: use ${allow}\n`, {
    status: 405,
    headers: { allow, "content-type": "text/plain" },
  });
}
