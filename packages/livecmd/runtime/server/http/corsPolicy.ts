/** What a browser page may send to the endpoint: the MCP request headers of both eras. */
const REQUEST_HEADERS = [
  "Accept",
  "Authorization",
  "Content-Type",
  "Last-Event-ID",
  "Mcp-Method",
  "Mcp-Name",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
].join(",");

/**
 * What a page may read of an answer: the 2025 era's session id (a client cannot continue its
 * session without it) and the bearer challenge (how a client learns where to get a token).
 */
const EXPOSED_HEADERS = "Mcp-Session-Id,WWW-Authenticate";

/** Whether a page of `origin` may call the endpoint, for a request that names `host`. */
export type OriginAllowed = (origin: string, host: string | null) => boolean;

/** Serves a request the CORS way: `serve` is everything after CORS (the front door on). */
export type CorsPolicy = (request: Request, serve: () => Promise<Response>) => Promise<Response>;

/**
 * CORS for the origins the endpoint allows (`originAllowed` in `httpFront.ts`: a page of this
 * same server on loopback, the public URL's, `allowedOrigins`): a preflight (`OPTIONS`) from one of them is answered
 * here, and their requests' answers carry the CORS headers. Any other origin gets none: its
 * preflight and its requests go on to the front door, which refuses them (403), so a browser
 * reveals nothing to the page. Web-standard, so that the endpoint mounted in any server (and
 * `serveHttp`'s own) answers alike.
 */
export function corsPolicy(allowed: OriginAllowed): CorsPolicy {
  return async (request, serve) => {
    const origin = request.headers.get("origin");
    if (origin === null || !allowed(origin, request.headers.get("host"))) return serve();
    if (request.method === "OPTIONS") return preflightAnswer(origin);
    const response = await serve();
    response.headers.set("access-control-allow-origin", origin);
    response.headers.append("vary", "Origin");
    response.headers.set("access-control-expose-headers", EXPOSED_HEADERS);
    return response;
  };
}

function preflightAnswer(origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      vary: "Origin",
      "access-control-allow-methods": "GET,POST,DELETE",
      "access-control-allow-headers": REQUEST_HEADERS,
      "access-control-max-age": "600",
      "access-control-expose-headers": EXPOSED_HEADERS,
      // Safari waits for a body after a 204 that does not say it has none.
      "content-length": "0",
    },
  });
}
