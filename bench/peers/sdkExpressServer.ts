/**
 * The SDK peer (`sdkNodeHandler.ts`) mounted in Express 5 as livecmd's endpoint is in
 * `expressServer.ts`: at `/mcp`, before the app's `express.json()`, on 127.0.0.1. Against
 * `sdkServer.ts` (the same handler on `node:http`) it is what Express itself costs a read.
 * Prints `listening <url>` and serves until stdin closes or SIGTERM; answers `cpu` lines
 * (`childControl.ts`).
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { controlledByStdin } from "./childControl.ts";
import { sdkNodeHandler } from "./sdkNodeHandler.ts";

const web = express();
web.all("/mcp", sdkNodeHandler());
web.use(express.json());
const http = web.listen(0, "127.0.0.1");
await once(http, "listening");
process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);

controlledByStdin(() => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
});
