import { createServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { App } from "../../model/app.ts";
import { audienceProblem } from "../auth/httpAuth.ts";
import { ARRIVAL_GRACE_MS, AwaitedRequests } from "./awaitedRequests.ts";
import { DEFAULT_HOST } from "./httpDefaults.ts";
import { checkEndpointOptions, DRAIN_MS, HttpEndpoint } from "./httpEndpoint.ts";
import { isMetadataPath } from "./httpFront.ts";
import type { McpHandlerOptions } from "./mcpHandler.ts";
import { isLoopback, isWildcard, ownHostNames } from "./ownHostNames.ts";
import { HEALTH_PATH, readinessAnswer } from "./readiness.ts";
import type { LiveStatus } from "../served/servedApp.ts";

export { DRAIN_MS };

/** Where `serveHttp` serves the endpoint. */
export const MCP_PATH = "/mcp";

export interface ServeHttpOptions extends McpHandlerOptions {
  /** 0 picks a free port; `url` tells which. */
  port: number;
  /**
   * The address to listen on, 127.0.0.1 when absent. Anything but loopback needs `auth`: without
   * it every granted command would be open to the network.
   */
  host?: string;
  /**
   * Host names, besides loopback and `publicUrl`'s, that requests may name in `Host`. On every
   * interface (0.0.0.0, ::) the machine's own host name and addresses are allowed too.
   */
  allowedHosts?: readonly string[];
  /** Node's server timeouts; `HTTP_TIMEOUTS` when absent. */
  timeouts?: Partial<HttpTimeouts>;
}

/**
 * Node's server timeouts, set so that no client can hold a socket by sending slowly: the
 * headers within 10 s, the whole request within 30 s (an event stream's response is not bound
 * by it), and an idle keep-alive socket closed after 5 s. A new connection's headers time runs
 * from when it opens, so the first bound is also how long a client may leave it unused.
 */
export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

export interface HttpTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export interface HttpServing {
  /** The endpoint as it listens, `http://127.0.0.1:PORT/mcp`. */
  url: URL;
  /** The live subscriptions of every client of this endpoint. */
  readonly live: LiveStatus;
  /**
   * Drains, then closes: stops accepting connections (`/healthz` answers 503 meanwhile), lets
   * the connections it accepted bring their requests (`AwaitedRequests`: each then closes), then
   * closes the endpoint as `McpHandler.close` does (requests in progress finish for up to
   * `drainMs`, `DRAIN_MS` when absent; streams end), then the sockets.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

/**
 * Serves the app over Streamable HTTP at `/mcp` on a server of its own: the endpoint
 * `mcpHandler` mounts (`HttpEndpoint`), `/healthz` for a load balancer, and 404 for the rest.
 */
export async function serveHttp(app: App, options: ServeHttpOptions): Promise<HttpServing> {
  const { port, host = DEFAULT_HOST, timeouts, ...endpointOptions } = options;
  checkEndpointOptions(endpointOptions);
  if (!isLoopback(host) && !options.auth) {
    throw new Error(
      `livecmd: serving on ${host} without auth would open every granted command to the network; pass auth (livecmd serve --tokens FILE, or --issuer URL --audience AUD), or serve on 127.0.0.1`,
    );
  }
  const http = await listenOn(host, port, { ...HTTP_TIMEOUTS, ...timeouts });
  const url = new URL(
    `http://${host.includes(":") ? `[${host}]` : host}:${(http.address() as AddressInfo).port}${MCP_PATH}`,
  );
  let endpoint: HttpEndpoint;
  try {
    endpoint = new HttpEndpoint(app, listeningAt(url, isWildcard(host), endpointOptions));
  } catch (error) {
    await new Promise((resolve) => http.close(resolve));
    throw error;
  }
  await endpoint.heard();
  const awaited = new AwaitedRequests(http);
  http.on("request", routed(endpoint, options.auth !== undefined));
  return {
    url,
    live: endpoint.live,
    async close(close) {
      const arrived = awaited.drain(ARRIVAL_GRACE_MS);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      await endpoint.close(close, arrived);
      http.closeAllConnections();
      await closed;
    },
  };
}

/**
 * The endpoint's options on a server listening at `url`: that URL is its own unless it listens
 * on every interface (`wildcard`), where it has many and advertises only the one it is told,
 * and the machine's own names and their origins are allowed.
 */
function listeningAt(url: URL, wildcard: boolean, options: McpHandlerOptions): McpHandlerOptions {
  const publicUrl = options.publicUrl ?? (wildcard ? undefined : url);
  const audience = options.auth && audienceProblem(options.auth, publicUrl);
  if (audience) throw new Error(`livecmd: ${audience}`);
  const ownHosts = wildcard ? ownHostNames() : [];
  return {
    ...options,
    ...(publicUrl && { publicUrl }),
    allowedHosts: [...ownHosts, ...(options.allowedHosts ?? [])],
    allowedOrigins: [
      ...ownHosts.map((name) => `http://${name}:${url.port}`),
      ...(options.allowedOrigins ?? []),
    ],
  };
}

/** `/mcp` (and its metadata, with auth) to the endpoint, `/healthz` to readiness, 404 for the rest. */
function routed(endpoint: HttpEndpoint, authenticates: boolean): RequestListener {
  return (request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://localhost");
    if (pathname === MCP_PATH || (authenticates && isMetadataPath(pathname)))
      return void endpoint.node(request, response);
    if (request.method === "GET" && pathname === HEALTH_PATH)
      return void answerReadiness(endpoint, response);
    response.writeHead(404, { "content-type": "text/plain" });
    response.end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
  };
}

async function answerReadiness(endpoint: HttpEndpoint, response: ServerResponse): Promise<void> {
  const answer = readinessAnswer(await endpoint.readiness());
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(await answer.text());
}

/** A node:http server listening on `host`, with `timeouts`. */
async function listenOn(host: string, port: number, timeouts: HttpTimeouts): Promise<Server> {
  const http = createServer({
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Node checks the first two every 30 s by default: a slow client would get up to 30 s more.
    connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => resolve());
  });
  return http;
}
