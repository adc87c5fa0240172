import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RATE_LIMITED } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { createShopApp } from "./fixtures/shopApp.ts";

// quota_show allows 3 runs a minute.
for (const protocol of PROTOCOLS) {
  describe(`rate limit on ${protocol}`, () => {
    it("counts reads and tool calls of a command against one limit, with a retry hint past it", async () => {
      const { app, invocations } = createShopApp();
      const mcp = await testApp(app).mcp({ protocol });
      await mcp.read("app://quota_show/1");
      await mcp.call("quota_show", { id: 1 });
      await mcp.read("app://quota_show/2");
      for (const overLimit of [mcp.call("quota_show", { id: 1 }), mcp.read("app://quota_show/1")]) {
        const error = await protocolError(overLimit, RATE_LIMITED);
        assert.match(error.message, /^Rate limit of quota_show reached; retry in \d+ s$/);
        const { command, retryAfterMs } = error.data as { command: string; retryAfterMs: number };
        assert.equal(command, "quota_show");
        assert.ok(retryAfterMs > 0 && retryAfterMs <= 60_000, `retryAfterMs ${retryAfterMs}`);
      }
      assert.equal(invocations.length, 3, "refused runs never reach the handler");
      await mcp.read("app://customers_show/1");
      await mcp.close();
    });

    it("does not count requests refused before the run", async () => {
      const mcp = await testApp(createShopApp().app).mcp({ protocol });
      for (let i = 0; i < 5; i++) await protocolError(mcp.read("app://quota_show/x"), -32602);
      // Arguments a call's schema refuses are a tool error (SEP-1303), and count no more.
      for (let i = 0; i < 5; i++)
        assert.equal((await mcp.call("quota_show", { id: "x" })).isError, true);
      for (let i = 0; i < 3; i++) await mcp.read(`app://quota_show/${i}`);
      await mcp.close();
    });
  });
}

describe("rate limit across connections", () => {
  it("is one limit per command for the whole process, whichever client and era", async () => {
    const { app } = createShopApp();
    const modern = await testApp(app).mcp({ protocol: "2026-07-28" });
    const legacy = await testApp(app).mcp({ protocol: "2025-11-25", transport: "http" });
    await modern.read("app://quota_show/1");
    await legacy.call("quota_show", { id: 1 });
    await modern.call("quota_show", { id: 1 });
    await protocolError(legacy.read("app://quota_show/1"), RATE_LIMITED);
    await modern.close();
    await legacy.close();
  });
});
