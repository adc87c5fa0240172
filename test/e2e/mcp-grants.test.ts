import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { createShopApp } from "./fixtures/shopApp.ts";

const TRANSPORTS = ["memory", "http"] as const;

for (const protocol of PROTOCOLS) {
  for (const transport of TRANSPORTS) {
    describe(`grants at runtime on ${protocol} over ${transport}`, () => {
      it("tells a listening client that resources and tools changed, on grant and on revoke", async () => {
        const { app } = createShopApp();
        const mcp = await testApp(app).mcp({ protocol, transport });
        const changes = await mcp.listChanges();
        const granted = Promise.all([changes.next("resources"), changes.next("tools")]);
        app.grant(app.commands.get("orders_between")!);
        await granted;
        const revoked = Promise.all([changes.next("resources"), changes.next("tools")]);
        app.revoke(app.commands.get("orders_between")!);
        await revoked;
        await mcp.close();
      });

      it("serves a command granted at runtime: listings, read, call, completion", async () => {
        const { app } = createShopApp();
        const mcp = await testApp(app).mcp({ protocol, transport });
        app.grant(app.commands.get("orders_between")!, app.commands.get("audit_log")!);
        assert.ok(
          (await mcp.templates()).some(
            (t) => t.uriTemplate === "app://orders_between/{from}/{to}{?status}",
          ),
        );
        assert.ok((await mcp.resources()).some((r) => r.uri === "app://audit_log"));
        assert.ok((await mcp.tools()).some((t) => t.name === "orders_between"));
        const read = await mcp.read("app://orders_between/a/b?status=open");
        assert.deepEqual(JSON.parse((read.contents[0] as { text: string }).text), {
          from: "a",
          to: "b",
          status: "open",
        });
        assert.deepEqual(
          JSON.parse(((await mcp.read("app://audit_log")).contents[0] as { text: string }).text),
          [{ at: "2026-01-01", what: "login" }],
        );
        assert.equal((await mcp.call("orders_between", { from: "a", to: "b" })).isError, undefined);
        assert.deepEqual(
          (await mcp.complete("app://orders_between/{from}/{to}{?status}", "status", "")).values,
          ["open", "paid", "void"],
        );
        await mcp.close();
      });

      it("refuses a revoked command on every path: listings, read, call, completion", async () => {
        const { app, invocations } = createShopApp();
        const mcp = await testApp(app).mcp({ protocol, transport });
        app.revoke(app.commands.get("customers_show")!);
        assert.ok(!(await mcp.templates()).some((t) => t.name === "customers_show"));
        assert.ok(!(await mcp.tools()).some((t) => t.name === "customers_show"));
        assert.deepEqual((await protocolError(mcp.read("app://customers_show/1"), -32602)).data, {
          uri: "app://customers_show/1",
        });
        assert.match(
          (await protocolError(mcp.call("customers_show", { id: 1 }), -32602)).message,
          /^Unknown tool: customers_show$/,
        );
        await protocolError(mcp.complete("app://customers_show/{id}", "id", ""), -32602);
        assert.deepEqual(invocations, []);
        await mcp.close();
      });
    });
  }
}

describe("list_changed goes only to clients that asked", () => {
  it("sends nothing to a 2026-07-28 client with no listen stream", async () => {
    const { app } = createShopApp();
    const listening = await testApp(app).mcp({ protocol: "2026-07-28" });
    const silent = await testApp(app).mcp({ protocol: "2026-07-28" });
    const heard = await listening.listChanges();
    const quiet = await (async () => {
      // A recorder without a listen stream: what arrives unasked.
      const recorder = { count: 0 };
      silent.client.setNotificationHandler(
        "notifications/resources/list_changed",
        () => void recorder.count++,
      );
      return recorder;
    })();
    const changed = heard.next("resources");
    app.grant(app.commands.get("orders_between")!);
    await changed;
    await silent.tools();
    assert.equal(quiet.count, 0);
    await listening.close();
    await silent.close();
  });
});
