/**
 * The peer of the start-up row: the hand-written SDK v2 server of `sdkCustomers.ts` (one
 * `ResourceTemplate`, the example's schema and seed in memory) served over stdio by the SDK's
 * `serveStdio` entry, the one `livecmd serve` uses. The bench compiles it and runs it on plain
 * Node, as it does the example app; it exits when stdin closes.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { buildServer } from "./sdkCustomers.ts";

serveStdio(() => buildServer(), {
  onerror: (error) => process.stderr.write(`sdk stdio peer: ${error.message}\n`),
});
