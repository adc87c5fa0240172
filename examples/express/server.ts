/**
 * The to-do app's web server: its own JSON API under `/api`, and its MCP endpoint at `/mcp`
 * (`mcpHandler`), in one Express app on one port. A task finished through the API is told at
 * once to every agent watching it.
 *
 *   node --import tsx examples/express/server.ts
 *
 * serves http://127.0.0.1:3000 (`PORT`, `HOST`), the tasks in ./tasks.sqlite (`TASKS_DB`);
 * `TOKENS_FILE` names a tokens file (`livecmd serve --tokens`' format) clients must hold a
 * token of. SIGTERM drains the endpoint, then closes the server.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import express, { type ErrorRequestHandler } from "express";
import { InvalidArguments, Origin, type App } from "livecmd";
import { mcpHandler, staticTokens, type McpHandler, type McpHandlerOptions } from "livecmd/server";
import { createTasksApp } from "./app.ts";

export interface TasksServerOptions {
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

export async function startTasksServer(options: TasksServerOptions): Promise<RunningServer> {
  const tasks = createTasksApp(options.databasePath);
  await tasks.ready();
  const mcp = mcpHandler(tasks, {
    ...options.mcp,
    ...(options.tokensFile !== undefined && { auth: staticTokens(options.tokensFile) }),
  });
  const web = express();
  // Before the body parser: the endpoint reads its requests' bodies itself, so close() waits
  // for one still uploading (behind the parser, it would see it only once read).
  web.all("/mcp", mcp.node);
  web.use(express.json());
  web.get("/api/tasks", async (_request, response) => {
    response.json(await tasks.run("tasks_open", [], AS_APP));
  });
  web.post("/api/tasks", async (request, response) => {
    const title: unknown = request.body?.title;
    response.status(201).json(await tasks.run("tasks_add", [title], AS_APP));
  });
  web.post("/api/tasks/:id/finish", async (request, response) => {
    response.json(await tasks.run("tasks_finish", [Number(request.params.id)], AS_APP));
  });
  web.get("/healthz", async (_request, response) => {
    const ready = await mcp.readiness();
    response.status(ready.status === "ok" ? 200 : 503).json(ready);
  });
  web.use(apiErrors);
  const http = web.listen(options.port, options.host ?? "127.0.0.1");
  await once(http, "listening");
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://${options.host ?? "127.0.0.1"}:${port}/`),
    app: tasks,
    mcp,
    async close() {
      const closed = new Promise((resolve) => http.close(resolve));
      await mcp.close();
      http.closeAllConnections();
      await closed;
      await tasks.close();
    },
  };
}

/** The API's bad input is the client's to fix (400); anything else is the server's (500). */
const apiErrors: ErrorRequestHandler = (error: Error, _request, response, _next) => {
  response.status(error instanceof InvalidArguments ? 400 : 500).json({ error: error.message });
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await startTasksServer({
    port: Number(process.env.PORT ?? 3000),
    ...(process.env.HOST !== undefined && { host: process.env.HOST }),
    databasePath: process.env.TASKS_DB ?? "tasks.sqlite",
    ...(process.env.TOKENS_FILE !== undefined && { tokensFile: process.env.TOKENS_FILE }),
  });
  process.stdout.write(`tasks: serving ${running.url.href}, MCP at ${running.url.href}mcp\n`);
  process.once("SIGTERM", () => void running.close().then(() => process.exit(0)));
}
