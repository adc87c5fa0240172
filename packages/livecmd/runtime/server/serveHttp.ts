import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { App } from "../model/app.ts";
import { cutText } from "../text/cutText.ts";
import { oncePerTurn } from "../live/liveRoom.ts";
import { isWildcard, ownHostNames } from "./ownHostNames.ts";
import { MAX_LOG_MESSAGE } from "./serverLog.ts";
import { HeldByToken } from "./auth/heldByToken.ts";
import { audienceProblem, type HttpAuth } from "./auth/httpAuth.ts";
import { buildServer } from "./buildServer.ts";
import { corsPolicy } from "./corsPolicy.ts";
import { allowedOriginsOf, frontDoor, MCP_PATH } from "./httpFront.ts";
import { DEFAULT_HOST, DEFAULT_SESSION_IDLE_MS } from "./httpDefaults.ts";
import { LegacyHttpSessions } from "./legacyHttpSessions.ts";
import type { PostgresDatabase } from "../db/postgres/postgresDatabase.ts";
import { PostgresSessionStore } from "../db/postgres/sessionStore.ts";
import { refusedOversized } from "./oversizedBody.ts";
import { HEALTH_PATH, readiness } from "./readiness.ts";
import { asNewRequest, currentRequest, type RequestContext } from "./requestContext.ts";
import { HttpListens, ListenResumes, routeByEra } from "./sdkAdapter/index.ts";
import { ServedApp, type LiveStatus, type ServeOptions } from "./servedApp.ts";

export { MCP_PATH };

export interface ServeHttpOptions extends ServeOptions {
  /** 0 picks a free port; `url` tells which. */
  port: number;
  /**
   * The address to listen on, 127.0.0.1 when absent. Anything but loopback needs `auth`: without
   * it every granted command would be open to the network.
   */
  host?: string;
  /** How clients authenticate (`staticTokens`, `jwtBearer`, or your own); none on loopback when absent. */
  auth?: HttpAuth;
  /**
   * The endpoint's URL as clients reach it, when that is not the address it listens on (behind a
   * reverse proxy): the tokens' audience, the protected-resource metadata's `resource`, and an
   * allowed Host and Origin.
   */
  publicUrl?: URL;
  /**
   * Host names, besides loopback and `publicUrl`'s, that requests may name in `Host`. On every
   * interface (0.0.0.0, ::) the machine's own host name and addresses are allowed too.
   */
  allowedHosts?: readonly string[];
  /** Origins (`scheme://host:port`), besides loopback's and `publicUrl`'s, that browsers may send. */
  allowedOrigins?: readonly string[];
  /**
   * How long a 2025-era session may go without a request in progress or an open stream
   * before it is closed (its client initializes again). 30 minutes when absent.
   */
  sessionIdleMs?: number;
  /** Node's server timeouts; `HTTP_TIMEOUTS` when absent. */
  timeouts?: Partial<HttpTimeouts>;
}

/**
 * Node's server timeouts, set so that no client can hold a socket by sending slowly: the
 * headers within 10 s, the whole request within 30 s (an event stream's response is not bound
 * by it), and an idle keep-alive socket closed after 5 s.
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
   * Drains, then closes: stops accepting connections (`/healthz` answers 503 meanwhile), ends
   * 2025 GET streams (their clients reconnect, behind a balancer to another replica), lets
   * requests in progress finish for up to `drainMs` (`DRAIN_MS` when absent), ends open listens
   * gracefully (the SDK's graceful close), then closes sessions and sockets.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

/** How long a shutdown waits for the requests in progress to finish. */
export const DRAIN_MS = 10_000;

/**
 * Serves the app over Streamable HTTP at `/mcp`. Requests pass the front door first (path,
 * Host, Origin, method, bearer token: `frontDoor`); then 2026-07-28 requests go to the SDK's
 * per-request handler, whose listen streams receive `list_changed` and `resources/updated`
 * through its event bus (`HttpListens` narrows and counts them), and 2025-era requests go to
 * sessions bound to their principal (`LegacyHttpSessions`).
 */
export async function serveHttp(app: App, options: ServeHttpOptions): Promise<HttpServing> {
  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  if (!(sessionIdleMs > 0))
    throw new Error(
      `livecmd: sessionIdleMs must be a positive number of milliseconds, got ${sessionIdleMs}`,
    );
  const host = options.host ?? DEFAULT_HOST;
  if (!isLoopback(host) && !options.auth) {
    throw new Error(
      `livecmd: serving on ${host} without auth would open every granted command to the network; pass auth (livecmd serve --tokens FILE, or --issuer URL --audience AUD), or serve on 127.0.0.1`,
    );
  }
  const served = new ServedApp(app, options);
  const onerror = (error: Error) =>
    served.onerror(
      error.message.length > MAX_LOG_MESSAGE
        ? new Error(cutText(error.message, MAX_LOG_MESSAGE))
        : error,
    );
  const modern = createMcpHandler(() => buildServer(served), {
    legacy: "reject",
    onerror: served.refusals.or(onerror),
    // Above livecmd's own limits, which answer first with -32602 and data.limit.
    maxSubscriptions: served.room.limits.listensTotal + 1,
  });
  const stopWatchingGrants = served.engine.onGrantsChanged(() => {
    if (served.catalog.hasReadableCommands) modern.notify.resourcesChanged();
    modern.notify.toolsChanged();
  });
  const { http, port } = await listenOn(host, options.port, {
    ...HTTP_TIMEOUTS,
    ...options.timeouts,
  });
  const listening = new URL(`http://${host.includes(":") ? `[${host}]` : host}:${port}${MCP_PATH}`);
  // On every interface the endpoint has many URLs: it advertises only the one it is told.
  const resource = options.publicUrl ?? (isWildcard(host) ? undefined : listening);
  const audience = options.auth && audienceProblem(options.auth, resource);
  if (audience) {
    stopWatchingGrants();
    served.close();
    await new Promise((resolve) => http.close(resolve));
    throw new Error(`livecmd: ${audience}`);
  }
  const held = new HeldByToken(options.auth, resource ?? listening, onerror);
  const ownHosts = isWildcard(host) ? ownHostNames() : [];
  // On PostgreSQL the 2025-era sessions are shared by every process serving the database.
  const shared = served.engine.sharesDatabase
    ? new PostgresSessionStore(served.engine.db as PostgresDatabase)
    : undefined;
  const legacy = new LegacyHttpSessions(served, onerror, sessionIdleMs, held, shared);
  await legacy.ready();
  // The bus delivers by exact URI to every listen holding it, which is every subscriber of it:
  // the listens publish each URI once.
  const listens = new HttpListens(
    served.room,
    oncePerTurn((uri) => modern.notify.resourceUpdated(uri)),
    held,
    new ListenResumes(served.stateKey),
  );
  let draining = false;
  const inProgress = new InProgress();
  const mcp = routeByEra({
    modern: async (request, read, auth) => {
      if ((read?.parsed as { method?: unknown } | undefined)?.method === "subscriptions/listen")
        inProgress.isStream(currentRequest());
      return listens.fetch(request, modern.fetch, read, auth);
    },
    legacy: (request, auth) => legacy.fetch(request, auth),
  });
  const frontOptions = {
    resource,
    port,
    auth: options.auth,
    allowedHosts: [...ownHosts, ...(options.allowedHosts ?? [])],
    allowedOrigins: [
      ...ownHosts.map((name) => `http://${name}:${port}`),
      ...(options.allowedOrigins ?? []),
    ],
    onerror,
  };
  const front = frontDoor(frontOptions, mcp);
  const handle = toNodeHandler({ fetch: front }, { onerror });
  const crossOrigin = corsPolicy(allowedOriginsOf(frontOptions));
  http.on("request", (request, response) => {
    if (refusedOversized(request, response)) return;
    if (request.method === "GET" && request.url === HEALTH_PATH) {
      void readiness(served.engine, draining).then(async (answer) => {
        response.writeHead(answer.status, Object.fromEntries(answer.headers));
        response.end(await answer.text());
      }, onerror);
      return;
    }
    const { remoteAddress, remotePort } = request.socket;
    crossOrigin(request, response, () =>
      asNewRequest((context) => {
        inProgress.add(response, context, request.method === "GET");
        void handle(request, response);
      }, `${remoteAddress}:${remotePort}`),
    );
  });
  return {
    url: listening,
    live: served.room.registry,
    async close({ drainMs = DRAIN_MS } = {}) {
      draining = true;
      // Waiting watch calls answer now: their clients call again, behind a balancer elsewhere.
      served.room.drain();
      stopWatchingGrants();
      held.close();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // 2025 GET streams end first: their clients reconnect (to another replica) meanwhile.
      legacy.endStreams();
      // Requests in progress finish while the handler and sessions still serve them...
      await inProgress.finished(drainMs);
      // ...then listens end gracefully, and whatever instance is still serving is closed.
      await modern.close();
      // One tick lets the graceful end of open listen streams reach the clients before the sockets go.
      await new Promise((resolve) => setTimeout(resolve, 10));
      await legacy.close();
      http.closeAllConnections();
      await closed;
      listens.closeAll();
      served.close();
    },
  };
}

/**
 * The requests in progress, so that a shutdown lets them finish: all but the streams (2025 GET
 * streams, 2026-07-28 listens), which a shutdown ends itself.
 */
class InProgress {
  /** Each response not yet finished, and the request it answers. */
  readonly #open = new Map<ServerResponse, RequestContext>();
  readonly #streams = new WeakSet<RequestContext>();
  #changed: (() => void) | undefined;

  add(response: ServerResponse, request: RequestContext, isGet: boolean): void {
    if (isGet) this.#streams.add(request);
    this.#open.set(response, request);
    response.once("close", () => {
      this.#open.delete(response);
      this.#changed?.();
    });
  }

  /** Marks the request being served as a stream (a listen), which a drain does not wait for. */
  isStream(request: RequestContext | undefined): void {
    if (request) this.#streams.add(request);
  }

  /** Resolves when no request but streams is left, or after `deadlineMs`. */
  async finished(deadlineMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      const check = () => {
        if ([...this.#open.values()].every((request) => this.#streams.has(request))) resolve();
      };
      this.#changed = check;
      timer = setTimeout(resolve, deadlineMs);
      check();
    });
    this.#changed = undefined;
    clearTimeout(timer);
  }
}

/** A node:http server listening on `host`, with `timeouts`, and the port it got. */
async function listenOn(
  host: string,
  port: number,
  timeouts: HttpTimeouts,
): Promise<{ http: Server; port: number }> {
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
  return { http, port: (http.address() as AddressInfo).port };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
