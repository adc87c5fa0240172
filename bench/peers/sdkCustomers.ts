/**
 * The hand-written SDK v2 server both SDK peers serve: a plain `McpServer` with one
 * `ResourceTemplate("app://customers_show/{id}")` whose callback runs the same three statements as
 * the example's customers_show on the example's schema and seed, in memory. `sdkServer.ts` serves
 * it over HTTP (the `resources/read` row), `sdkStdioServer.ts` over stdio (the start-up row).
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { openExampleDatabase } from "../../example/db.ts";

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

/** A fresh instance per request (`createMcpHandler`) or connection (`serveStdio`). */
export function buildServer(): McpServer {
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
