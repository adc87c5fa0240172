/**
 * The bookmarks app's web server: its own JSON API under `/api`, and its MCP endpoint at `/mcp`
 * (`mcpHandler`'s web-standard face), in one Hono app served by `@hono/node-server`. A bookmark
 * saved through the API is told at once to every agent watching its tag.
 *
 *   node --import tsx examples/hono/server.ts
 *
 * serves http://127.0.0.1:3000 (`PORT`, `HOST`), the bookmarks in ./bookmarks.sqlite
 * (`BOOKMARKS_DB`); `TOKENS_FILE` names a tokens file (`livecmd serve --tokens`' format)
 * clients must hold a token of. SIGTERM drains the endpoint, then closes the server.
 */
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { InvalidArguments, Origin, type App } from "livecmd";
import { mcpHandler, staticTokens, type McpHandler, type McpHandlerOptions } from "livecmd/server";
import { createBookmarksApp } from "./app.ts";

export interface BookmarksServerOptions {
  port: number;
  host?: string;
  databasePath: string;
  /** What the MCP endpoint is given besides the tokens (allowed origins, limits...). */
  mcp?: McpHandlerOptions;
  tokensFile?: string;
}

export interface RunningServer {
  /** The server's root; the MCP endpoint is `/mcp` under it. */
  url: URL;
  app: App;
  /** The MCP endpoint, mounted at `/mcp`. */
  mcp: McpHandler;
  /** Drains the MCP endpoint (requests in progress finish, streams end), then closes the server. */
  close(): Promise<void>;
}

const AS_APP = { origin: Origin.App };

export async function startBookmarksServer(
  options: BookmarksServerOptions,
): Promise<RunningServer> {
  const bookmarks = createBookmarksApp(options.databasePath);
  await bookmarks.ready();
  const mcp = mcpHandler(bookmarks, {
    ...options.mcp,
    ...(options.tokensFile !== undefined && { auth: staticTokens(options.tokensFile) }),
  });
  const web = new Hono();
  web.get("/api/bookmarks/:tag", async (c) =>
    c.json(await bookmarks.run("bookmarks_tagged", [c.req.param("tag")], AS_APP)),
  );
  web.post("/api/bookmarks", async (c) =>
    c.json(await bookmarks.run("bookmarks_add", [await c.req.json()], AS_APP), 201),
  );
  web.get("/healthz", async (c) => {
    const ready = await mcp.readiness();
    return c.json(ready, ready.status === "ok" ? 200 : 503);
  });
  // The client's address lets an endpoint without auth refuse other machines.
  web.all("/mcp", (c) => mcp.fetch(c.req.raw, getConnInfo(c)));
  web.onError((error, c) =>
    c.json({ error: error.message }, error instanceof InvalidArguments ? 400 : 500),
  );
  const host = options.host ?? "127.0.0.1";
  const http = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const server = serve({ fetch: web.fetch, port: options.port, hostname: host }, () =>
      resolve(server),
    );
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://${host}:${port}/`),
    app: bookmarks,
    mcp,
    async close() {
      const closed = new Promise((resolve) => http.close(resolve));
      await mcp.close();
      if ("closeAllConnections" in http) http.closeAllConnections();
      await closed;
      await bookmarks.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await startBookmarksServer({
    port: Number(process.env.PORT ?? 3000),
    ...(process.env.HOST !== undefined && { host: process.env.HOST }),
    databasePath: process.env.BOOKMARKS_DB ?? "bookmarks.sqlite",
    ...(process.env.TOKENS_FILE !== undefined && { tokensFile: process.env.TOKENS_FILE }),
  });
  process.stdout.write(`bookmarks: serving ${running.url.href}, MCP at ${running.url.href}mcp\n`);
  process.once("SIGTERM", () => void running.close().then(() => process.exit(0)));
}
