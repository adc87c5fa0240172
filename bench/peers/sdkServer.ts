/**
 * The peer of the `resources/read` row: what a team writes by hand with the SDK v2 alone. A plain
 * `McpServer` with one `ResourceTemplate("app://customers_show/{id}")` whose callback runs the same
 * three statements as the example's customers_show on the same kind of database (the example's
 * schema and seed, in memory), served by `createMcpHandler` + `toNodeHandler` on `node:http`
 * at 127.0.0.1 with the same Host/Origin checks livecmd makes.
 *
 * Run as a child: `node --import tsx bench/peers/sdkServer.ts` prints `listening <url>` and serves
 * until stdin closes or SIGTERM; answers `cpu` lines (see `childControl.ts`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { openExampleDatabase } from "../../example/db.ts";
import { controlledByStdin } from "./childControl.ts";

const db = openExampleDatabase(":memory:");
// Prepared once, as a hand-written server would (livecmd caches its statements the same way).
const customerById = db.prepare(
  `SELECT c.id, c.name, c.email, c.balance, c.created_at,
          COUNT(o.id) AS order_count, ROUND(COALESCE(SUM(o.total), 0), 2) AS order_total
     FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
    WHERE c.id = ? GROUP BY c.id`,
);
const tagsOf = db.prepare("SELECT tag FROM customer_tags WHERE customer_id = ? ORDER BY tag");
const attributesOf = db.prepare(
  "SELECT key, value FROM customer_attributes WHERE customer_id = ? ORDER BY key",
);

function showCustomer(id: number): unknown {
  const customer = customerById.get(id) as Record<string, unknown> | undefined;
  if (!customer) throw new Error(`no customer with id ${id}`);
  const tags = (tagsOf.all(id) as { tag: string }[]).map(({ tag }) => tag);
  const attributes = Object.fromEntries(
    (attributesOf.all(id) as { key: string; value: string }[]).map(({ key, value }) => [
      key,
      value,
    ]),
  );
  return { ...customer, tags, attributes };
}

/** A fresh instance per request, as `createMcpHandler` requires. */
function buildServer(): McpServer {
  const server = new McpServer({ name: "sdk-peer", version: "0.0.0" });
  server.registerResource(
    "customers_show",
    new ResourceTemplate("app://customers_show/{id}", { list: undefined }),
    { title: "Customer", mimeType: "application/json" },
    (uri, variables) => {
      // The SDK hands the variable over undecoded and untyped: the least a careful author checks.
      const raw = variables.id;
      const id = typeof raw === "string" && /^(0|[1-9]\d{0,15})$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(id)) throw new Error(`id must be an integer, got ${String(raw)}`);
      return {
        contents: [
          { uri: uri.href, mimeType: "application/json", text: JSON.stringify(showCustomer(id)) },
        ],
      };
    },
  );
  return server;
}

const onerror = (error: Error) => process.stderr.write(`sdk peer: ${error.message}\n`);
const handler = createMcpHandler(() => buildServer(), { onerror });
const nodeHandler = toNodeHandler(
  { fetch: (request: Request) => handler.fetch(request) },
  { onerror },
);
const validHost = localhostHostValidation();
const validOrigin = localhostOriginValidation();
const http = createServer((req, res) => {
  if (!validHost(req, res) || !validOrigin(req, res)) return;
  void nodeHandler(req, res);
});
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
});

const stop = () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
};
controlledByStdin(stop);
