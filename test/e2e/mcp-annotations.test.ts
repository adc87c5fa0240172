import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import type { Catalog } from "../../packages/livecmd/runtime/model/catalog.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { catalogDrift } from "../../packages/livecmd/runtime/server/policy/catalogDrift.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";
import * as customers from "../../example/commands/customers.ts";
import catalog from "../../generated/catalog.json" with { type: "json" };
import * as orders from "../../example/commands/orders.ts";

/** The example app's tools as a host sees their hints. */
const EXPECTED = {
  customers_show: { title: "Customer", readOnlyHint: true },
  customers_index: { title: "Customers", readOnlyHint: true },
  orders_between: { title: "Orders between two days", readOnlyHint: true },
  customers_tagged: { readOnlyHint: true },
  customers_create: { readOnlyHint: false, destructiveHint: false },
  customers_rename: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  customers_delete: { readOnlyHint: false, destructiveHint: true },
  orders_create: { readOnlyHint: false, destructiveHint: false },
};

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    it(`tools/list carries the derived annotations (${protocol}, ${transport})`, async () => {
      const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol, transport });
      const tools = new Map((await mcp.tools()).map((tool) => [tool.name, tool.annotations]));
      for (const [name, annotations] of Object.entries(EXPECTED))
        assert.deepEqual(tools.get(name), annotations, name);
      // Every tool has them: a host that finds none assumes a destructive, open-world write.
      assert.ok([...tools.values()].every((annotations) => annotations !== undefined));
      await mcp.close();
    });
  }
}

describe("annotations and the catalog", () => {
  it("an app whose stated hints changed since codegen is a stale catalog, naming the command", () => {
    const app = defineApp({
      name: "app",
      commands: {
        ...customers,
        ...orders,
        customers_rename: { ...customers.customers_rename, options: { annotations: {} } },
      },
      agent: { grant: [] },
    });
    assert.ok(
      catalogDrift(engineOf(app), catalog as Catalog).includes(
        `customers_rename's annotations are {"readOnlyHint":false,"destructiveHint":false} in the app, {"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true} in catalog.json`,
      ),
    );
  });
});
