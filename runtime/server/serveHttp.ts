import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { App } from "../app.ts";
import { buildServer } from "./buildServer.ts";
import { LegacyHttpSessions } from "./legacyHttpSessions.ts";
import { HttpListens, routeByEra } from "./sdkAdapter/index.ts";
import { ServedApp, type LiveStatus, type ServeOptions } from "./servedApp.ts";

export const MCP_PATH = "/mcp";

export interface ServeHttpOptions extends ServeOptions {
  /** 0 picks a free port; `url` tells which. */
  port: number;
  /** Only loopback: the endpoint has no authentication, and Host/Origin checks assume localhost. */
  host?: "127.0.0.1";
  /**
   * How long a 2025-era session may go without a request in progress or an open stream
   * before it is closed (its client initializes again). 30 minutes when absent.
   */
  sessionIdleMs?: number;
}

const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface HttpServing {
  /** The endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: URL;
  /** The live subscriptions of every client of this endpoint. */
  readonly live: LiveStatus;
  /** Ends open listens gracefully and sessions, then closes the sockets. */
  close(): Promise<void>;
}

/**
 * Serves the app over Streamable HTTP at `/mcp` on 127.0.0.1. 2026-07-28 requests go to the
 * SDK's per-request handler, whose listen streams receive `list_changed` and `resources/updated`
 * through its event bus (`HttpListens` narrows and tracks their filters); 2025-era requests go to
 * sessions (see `LegacyHttpSessions`). Host and Origin are checked against localhost, against DNS
 * rebinding.
 */
export async function serveHttp(app: App, options: ServeHttpOptions): Promise<HttpServing> {
  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  if (!(sessionIdleMs > 0))
    throw new Error(
      `livecmd: sessionIdleMs must be a positive number of milliseconds, got ${sessionIdleMs}`,
    );
  const served = new ServedApp(app, options);
  const { onerror } = served;
  const modern = createMcpHandler(() => buildServer(served), { legacy: "reject", onerror });
  const legacy = new LegacyHttpSessions(served, onerror, sessionIdleMs);
  // The bus delivers by exact URI to every listen holding it, which is every subscriber of it.
  const listens = new HttpListens(served, (uri) => modern.notify.resourceUpdated(uri));
  const stopWatchingGrants = app.onGrantsChanged(() => {
    if (served.catalog.hasReadableCommands) modern.notify.resourcesChanged();
    modern.notify.toolsChanged();
  });
  const route = routeByEra({
    modern: (request, read) => listens.fetch(request, modern.fetch, read),
    legacy: (request) => legacy.fetch(request),
  });
  const nodeHandler = toNodeHandler({ fetch: route }, { onerror });
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    if (new URL(req.url ?? "/", "http://localhost").pathname !== MCP_PATH) {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    void nodeHandler(req, res);
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://${host}:${port}${MCP_PATH}`),
    live: served.live,
    async close() {
      stopWatchingGrants();
      await modern.close();
      await legacy.close();
      // One tick lets the graceful end of open listen streams reach the clients before the sockets go.
      await new Promise((resolve) => setTimeout(resolve, 10));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      listens.closeAll();
      served.close();
    },
  };
}
