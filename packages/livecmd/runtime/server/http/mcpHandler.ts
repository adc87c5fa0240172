import type { App } from "../../model/app.ts";
import { audienceProblem, type HttpAuth } from "../auth/httpAuth.ts";
import { checkEndpointOptions, HttpEndpoint } from "./httpEndpoint.ts";
import type { NodeHandler } from "./nodeFace.ts";
import type { Readiness } from "./readiness.ts";
import type { RemoteAddress } from "../log/requestContext.ts";
import type { LiveStatus, ServeOptions } from "../served/servedApp.ts";

export type { NodeHandler, Readiness, RemoteAddress };

export interface McpHandlerOptions extends ServeOptions {
  /** How clients authenticate (`staticTokens`, `jwtBearer`, or your own); without it, only clients on this machine are answered. */
  auth?: HttpAuth;
  /**
   * The endpoint's URL as clients reach it (`https://example.com/mcp`): the tokens' audience,
   * the protected-resource metadata's `resource`, and an allowed Host and Origin. Without it the
   * endpoint has no one URL: it advertises none, and checks each token against the URL its
   * request names.
   */
  publicUrl?: URL;
  /** Host names, besides loopback and `publicUrl`'s, that requests may name in `Host`. */
  allowedHosts?: readonly string[];
  /** Origins (`scheme://host:port`), besides this same server's on loopback and `publicUrl`'s, that browsers may send. */
  allowedOrigins?: readonly string[];
  /**
   * How long a 2025-era session may go without a request in progress or an open stream
   * before it is closed (its client initializes again). 30 minutes when absent.
   */
  sessionIdleMs?: number;
}

/** The second argument of `fetch`: where the request came from, when the server tells. */
export interface FetchOptions {
  /**
   * The client's address (Hono on Node: `getConnInfo(c)` passes as a whole). Without it, an
   * endpoint without auth cannot refuse clients on other machines, and shares count per
   * principal only.
   */
  remote?: RemoteAddress;
}

/**
 * The app's MCP endpoint, mounted in the app's own server: everything `serveHttp` serves but
 * the listening socket. Give it the requests of one path (`/mcp`) and, with `auth`, of
 * `/.well-known/oauth-protected-resource/…`; it answers every request it is given.
 */
export interface McpHandler {
  /**
   * For `node:http`, Express and Fastify: `app.all("/mcp", mcp.node)`, or in Fastify
   * `reply.hijack(); return mcp.node(request.raw, reply.raw, request.body)`. Mounted before the
   * app's body parser, a request counts as in progress (for `close()`) from its headers. A body
   * an Express parser read already (`req.body`) is taken as it is, its request counted from
   * when the parser hands it on.
   */
  readonly node: NodeHandler;
  /**
   * For web-standard servers: Hono (`(c) => mcp.fetch(c.req.raw, getConnInfo(c))`), Next.js
   * route handlers, Bun, Deno.
   */
  readonly fetch: (request: Request, options?: FetchOptions) => Promise<Response>;
  /** The live subscriptions of every client of this endpoint. */
  readonly live: LiveStatus;
  /** Whether the endpoint can serve (for the app's readiness route), and if not, why. */
  readiness(): Promise<Readiness>;
  /**
   * Drains, then closes, as `serveHttp` does on SIGTERM: `readiness()` says so at once, 2025
   * GET streams end (their clients reconnect, behind a balancer to another replica), requests
   * in progress finish for up to `drainMs` (10 s when absent), open listens end gracefully,
   * sessions close. Later requests are answered 503. Close the app's server after it.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

/**
 * The app's Streamable HTTP endpoint, to mount in the server the app already runs: both eras
 * (2025 sessions with their GET streams, shared by every replica on PostgreSQL; 2026-07-28
 * listens, resumed on any replica), auth, the Host and Origin checks, CORS, the body limit, the
 * fair shares and rate limits. The app's server owns the listener: without `auth` the endpoint
 * answers only clients on this machine (by the socket's peer address, where the server tells
 * it) and Host names of loopback, as `serveHttp` on 127.0.0.1 does.
 */
export function mcpHandler(app: App, options: McpHandlerOptions = {}): McpHandler {
  checkEndpointOptions(options);
  const audience = options.auth && audienceProblem(options.auth, options.publicUrl, "mounted");
  if (audience) throw new Error(`livecmd: ${audience}`);
  return new HttpEndpoint(app, options);
}
