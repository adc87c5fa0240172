/**
 * The peer of the `resources/read` row: what a team writes by hand with the SDK v2 alone. A plain
 * `McpServer` with one `ResourceTemplate("app://customers_show/{id}")` whose callback runs the same
 * three statements as the example's customers_show on the same kind of database (the example's
 * schema and seed, in memory), served by `createMcpHandler` + `toNodeHandler` on `node:http`
 * at 127.0.0.1 with the same Host/Origin checks livecmd makes (`sdkNodeHandler.ts`).
 *
 * Run as a child: `node --import tsx bench/peers/sdkServer.ts` prints `listening <url>` and serves
 * until stdin closes or SIGTERM; answers `cpu` lines (see `childControl.ts`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { controlledByStdin } from "./childControl.ts";
import { sdkNodeHandler } from "./sdkNodeHandler.ts";

const http = createServer(sdkNodeHandler());
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});

const stop = () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
};
controlledByStdin(stop);
