/**
 * The mounted-endpoint row's Express side, as a child process: the example app on a fresh
 * in-memory database, its endpoint mounted with `mcpHandler` at `/mcp` in an Express app that
 * parses JSON bodies (`express.json()`), mounted before that parser as the docs and
 * `examples/express` mount it, on 127.0.0.1. Prints
 * `listening <url>` and serves until stdin closes or SIGTERM; answers `cpu` lines
 * (`childControl.ts`).
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { createExampleApp } from "../../example/app.ts";
import { mcpHandler } from "../../packages/livecmd/runtime/server/index.ts";
import { controlledByStdin } from "./childControl.ts";

const mcp = mcpHandler(createExampleApp(":memory:"));
const web = express();
web.all("/mcp", mcp.node);
web.use(express.json());
const http = web.listen(0, "127.0.0.1");
await once(http, "listening");
process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);

controlledByStdin(() => void mcp.close().then(() => process.exit(0)));
