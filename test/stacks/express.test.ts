import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import express, { type Express, type RequestHandler } from "express";
import { createTasksApp } from "../../examples/express/app.ts";
import { startTasksServer } from "../../examples/express/server.ts";
import { mcpHandler, type McpHandler } from "../../packages/livecmd/runtime/server/index.ts";
import { describeMountedStack } from "../helpers/mountedStack.ts";
import { TASKS_STACK } from "../helpers/tasksStack.ts";
import { INITIALIZE } from "../helpers/rawStreams.ts";

describeMountedStack({
  ...TASKS_STACK,
  name: "Express (examples/express)",
  start: (options) => startTasksServer({ port: 0, ...options }),
});

type Parsers = () => RequestHandler[];
type Mount = (web: Express, mcp: McpHandler) => void;

/** Body parsers an Express app may run before the endpoint, reading the body first. */
const PARSERS: [string, Parsers][] = [
  ["no body parser", () => []],
  ["express.json()", () => [express.json()]],
  ['express.text({ type: "*/*" })', () => [express.text({ type: "*/*" })]],
  ['express.raw({ type: "*/*" })', () => [express.raw({ type: "*/*" })]],
];

const MOUNTS: [string, Mount][] = [
  ['app.all("/mcp")', (web, mcp) => web.all("/mcp", mcp.node)],
  ['app.use("/mcp"), which cuts req.url to /', (web, mcp) => web.use("/mcp", mcp.node)],
];

describe("Express: the endpoint takes the body whichever parser read it first, mounted either way", () => {
  for (const [parser, parsers] of PARSERS) {
    for (const [mount, mountOn] of MOUNTS) {
      it(`${parser}, ${mount}: a 2025 session opens, a 2026-07-28 read answers`, async () => {
        const app = createTasksApp(":memory:");
        const mcp = mcpHandler(app);
        const web = express();
        for (const parser of parsers()) web.use(parser);
        mountOn(web, mcp);
        const running = await listening(web);
        try {
          const url = new URL("/mcp", running.url);
          const initialized = await fetch(url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: INITIALIZE,
          });
          assert.equal(initialized.status, 200, await initialized.clone().text());
          assert.ok(initialized.headers.get("mcp-session-id"));
          await initialized.body?.cancel();
          const client = new Client(
            { name: "parsers", version: "0" },
            { versionNegotiation: { mode: { pin: "2026-07-28" } } },
          );
          await client.connect(new StreamableHTTPClientTransport(url));
          const read = await client.readResource({ uri: "tasks://tasks_show/1" });
          assert.match((read.contents[0] as { text: string }).text, /"Water the plants"/);
          await client.close();
        } finally {
          await mcp.close();
          await running.close();
        }
      });
    }
  }

  it("serves the protected-resource metadata where the app routes it (app.use cuts the path; originalUrl keeps it)", async () => {
    const app = createTasksApp(":memory:");
    const publicUrl = new URL("https://tasks.example.test/mcp");
    const mcp = mcpHandler(app, { auth: { verify: () => undefined }, publicUrl });
    const web = express();
    web.use("/.well-known/oauth-protected-resource", mcp.node);
    const running = await listening(web);
    try {
      const metadata = await fetch(
        new URL("/.well-known/oauth-protected-resource/mcp", running.url),
      );
      assert.equal(metadata.status, 200);
      assert.equal(((await metadata.json()) as { resource: string }).resource, publicUrl.href);
    } finally {
      await mcp.close();
      await running.close();
    }
  });
});

async function listening(web: Express): Promise<{ url: URL; close(): Promise<void> }> {
  const http = web.listen(0, "127.0.0.1");
  await once(http, "listening");
  return {
    url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`),
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
