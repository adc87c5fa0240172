/**
 * The to-do app of examples/express, served by Fastify: its own JSON API under `/api`, and its
 * MCP endpoint at `/mcp` (`mcpHandler`), on one port. A task finished through the API is told
 * at once to every agent watching it.
 *
 *   node --import tsx examples/fastify/server.ts
 *
 * serves http://127.0.0.1:3000 (`PORT`, `HOST`), the tasks in ./tasks.sqlite (`TASKS_DB`);
 * `TOKENS_FILE` names a tokens file (`livecmd serve --tokens`' format) clients must hold a
 * token of. SIGTERM drains the endpoint, then closes the server.
 */
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyInstance } from "fastify";
import { InvalidArguments, Origin } from "livecmd";
import { mcpHandler, staticTokens, type McpHandler } from "livecmd/server";
import { createTasksApp } from "../express/app.ts";
import type { RunningServer, TasksServerOptions } from "../express/server.ts";

const AS_APP = { origin: Origin.App };

/**
 * The endpoint at `/mcp`, in a scope of its own whose only body parser leaves the body unread:
 * the endpoint reads it itself (its 4 MiB limit, JSON-RPC's parse error, a drain that waits for
 * an upload), where Fastify's parsers would answer first (their 1 MiB limit, their 400) and
 * leave it nothing to read. The app's other routes keep Fastify's parsers.
 */
export function mountMcp(web: FastifyInstance, mcp: McpHandler): void {
  void web.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _body, done) => done(null));
    scope.all("/mcp", (request, reply) => {
      reply.hijack();
      return mcp.node(request.raw, reply.raw);
    });
  });
}

export async function startTasksServer(options: TasksServerOptions): Promise<RunningServer> {
  const tasks = createTasksApp(options.databasePath);
  await tasks.ready();
  const mcp = mcpHandler(tasks, {
    ...options.mcp,
    ...(options.tokensFile !== undefined && { auth: staticTokens(options.tokensFile) }),
  });
  const web = Fastify();
  mountMcp(web, mcp);
  web.get("/api/tasks", () => tasks.run("tasks_open", [], AS_APP));
  web.post("/api/tasks", async (request, reply) => {
    const title: unknown = (request.body as { title?: unknown } | undefined)?.title;
    return reply.code(201).send(await tasks.run("tasks_add", [title], AS_APP));
  });
  web.post("/api/tasks/:id/finish", (request) =>
    tasks.run("tasks_finish", [Number((request.params as { id: string }).id)], AS_APP),
  );
  web.get("/healthz", async (_request, reply) => {
    const ready = await mcp.readiness();
    return reply.code(ready.status === "ok" ? 200 : 503).send(ready);
  });
  // The API's bad input is the client's to fix (400); anything else is the server's (500).
  web.setErrorHandler((error: Error, _request, reply) =>
    reply.code(error instanceof InvalidArguments ? 400 : 500).send({ error: error.message }),
  );
  const host = options.host ?? "127.0.0.1";
  await web.listen({ port: options.port, host });
  const { port } = web.server.address() as { port: number };
  return {
    url: new URL(`http://${host}:${port}/`),
    app: tasks,
    mcp,
    async close() {
      await mcp.close();
      web.server.closeAllConnections();
      await web.close();
      await tasks.close();
    },
  };
}

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
