/**
 * livecmd's side of the `resources/read` row, as a child process: the example app on a fresh
 * in-memory database, served by `serveHttp(app, { port: 0 })`. Prints `listening <url>` and
 * serves until stdin closes or SIGTERM; answers `cpu` lines (see `childControl.ts`).
 */
import { createExampleApp } from "../../example/app.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { controlledByStdin } from "./childControl.ts";

const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
process.stdout.write(`listening ${serving.url.href}\n`);

const stop = () => void serving.close().then(() => process.exit(0));
controlledByStdin(stop);
