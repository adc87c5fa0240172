/**
 * The mounted-endpoint row's Hono side, as a child process: the example app on a fresh
 * in-memory database, its endpoint's web-standard face mounted with `mcpHandler` in a Hono app
 * at `/mcp`, served by `@hono/node-server` on 127.0.0.1. Prints `listening <url>` and serves
 * until stdin closes or SIGTERM; answers `cpu` lines (`childControl.ts`).
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { createExampleApp } from "../../example/app.ts";
import { mcpHandler } from "../../packages/livecmd/runtime/server/index.ts";
import { controlledByStdin } from "./childControl.ts";

const mcp = mcpHandler(createExampleApp(":memory:"));
const web = new Hono();
web.all("/mcp", (c) => mcp.fetch(c.req.raw, getConnInfo(c)));
const http = serve({ fetch: web.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
  process.stdout.write(`listening http://127.0.0.1:${info.port}/mcp\n`),
);

controlledByStdin(() => void mcp.close().then(() => http.close(() => process.exit(0))));
