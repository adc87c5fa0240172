import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, test } from "node:test";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { exampleAppsOn } from "../helpers/exampleAppsOn.ts";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import {
  mcpHandler,
  serveStdio,
  serverLog,
  type ServerLog,
} from "../../packages/livecmd/runtime/server/index.ts";
import { emptyDatabase, postgresServer } from "../helpers/postgres.ts";

const server = postgresServer();

/** Each serving entry, started on `app` with `log`; resolves once it is closed again. */
const entries: { entry: string; serve(app: App, log: ServerLog): () => Promise<void> }[] = [
  {
    entry: "an endpoint mounted in the app's own server (mcpHandler)",
    serve(app, log) {
      const mcp = mcpHandler(app, { log });
      return () => mcp.close({ drainMs: 0 });
    },
  },
  {
    entry: "serveStdio",
    serve(app, log) {
      const transport = new StdioServerTransport(new PassThrough(), new PassThrough());
      const serving = serveStdio(app, { log, transport });
      return () => serving.close();
    },
  },
];

describe(
  "a serving entry says on its log how the app's changes are captured, once the database is open",
  { skip: server.skip },
  () => {
    for (const { entry, serve } of entries) {
      test(entry, async () => {
        const [app] = exampleAppsOn(await emptyDatabase(server.url!), 1) as [App];
        const lines: { level: string; msg: string }[] = [];
        const close = serve(
          app,
          serverLog("json", { write: (line) => lines.push(JSON.parse(line)) }),
        );
        try {
          await app.ready();
          const said = () => lines.filter(({ msg }) => msg.includes("changes are captured by"));
          for (let waited = 0; said().length === 0 && waited < 10_000; waited += 20)
            await new Promise((resolve) => setTimeout(resolve, 20));
          assert.deepEqual(
            said().map(({ level }) => level),
            ["info"],
          );
          assert.match(
            said()[0]!.msg,
            /^PostgreSQL's changes are captured by (logical decoding \(wal_level = logical|triggers that NOTIFY: wal_level is replica)/,
          );
        } finally {
          await close();
          await app.close();
        }
      });
    }
  },
);
