/**
 * The watch tool row's server, as a child process: the example app on a fresh in-memory
 * database, served by `serveHttp(app, { port: 0 })`. Prints `listening <url>`; on stdin it takes
 * `heap` (heap used after a forced GC: run with --expose-gc), `stats` (the live registry's, as
 * JSON, once every write so far is re-run), and `rename <id> <name>`, a write by the app itself,
 * answered with the wall-clock time just before it began (comparable across processes).
 */
import { createExampleApp } from "../../example/app.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { wallClock } from "../lib/pgWatchers.ts";
import { controlledByStdin } from "./childControl.ts";

const app = createExampleApp(":memory:");
const serving = await serveHttp(app, { port: 0 });
process.stdout.write(`listening ${serving.url.href}\n`);

controlledByStdin(() => void serving.close().then(() => process.exit(0)), {
  heap: () => {
    globalThis.gc!();
    return String(process.memoryUsage().heapUsed);
  },
  stats: async () => {
    await serving.live.settled();
    return JSON.stringify(serving.live.stats());
  },
  rename: async ([id, name]) => {
    const began = wallClock();
    await app.run("customers_rename", [Number(id), name], { origin: Origin.App });
    return String(began);
  },
});
