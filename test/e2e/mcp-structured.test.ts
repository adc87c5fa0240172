import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

const TRANSPORTS = ["memory", "http"] as const;

for (const protocol of PROTOCOLS) {
  for (const transport of TRANSPORTS) {
    describe(`typed tool results on ${protocol} over ${transport}`, () => {
      it("tools/list publishes each command's result type as outputSchema", async () => {
        const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol, transport });
        try {
          const tools = new Map((await mcp.tools()).map((tool) => [tool.name, tool]));
          const show = tools.get("customers_show")?.outputSchema as Record<string, any>;
          assert.equal(show.type, "object");
          assert.deepEqual(show.properties.id, { type: "integer" });
          assert.deepEqual(show.properties.tags, {
            type: "array",
            items: { type: "string" },
            description: "Sorted.",
          });
          // A list result: 2026-07-28 takes any root; the 2025 wire needs an object, and the
          // SDK's codec wraps the schema as { result } (SEP-2106).
          const between = tools.get("orders_between")?.outputSchema as Record<string, any>;
          const items = protocol === "2026-07-28" ? between : between.properties.result;
          if (protocol !== "2026-07-28") {
            assert.equal(between.type, "object");
            assert.deepEqual(between.required, ["result"]);
          }
          assert.equal(items.type, "array");
          assert.equal(items.items.properties.status.type, "string");
        } finally {
          await mcp.close();
        }
      });

      it("tools/call returns structuredContent and the same value as JSON text", async () => {
        const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol, transport });
        try {
          const shown = await mcp.call("customers_show", { id: 1 });
          assert.equal(shown.isError, undefined);
          const structured = shown.structuredContent as { id: number; name: string };
          assert.equal(structured.id, 1);
          assert.equal(structured.name, "Ada Lovelace");
          assert.deepEqual(shown.content, [{ type: "text", text: JSON.stringify(structured) }]);

          const between = await mcp.call("orders_between", {
            from: "2025-01-01",
            to: "2025-01-31",
          });
          const text = (between.content[0] as { text: string }).text;
          const orders = JSON.parse(text) as { placed_on: string }[];
          assert.ok(orders.length > 0);
          assert.deepEqual(
            between.structuredContent,
            protocol === "2026-07-28" ? orders : { result: orders },
          );
        } finally {
          await mcp.close();
        }
      });
    });
  }
}
