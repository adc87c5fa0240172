import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { Origin } from "../../runtime/app.ts";
import { RATE_LIMITED } from "../../runtime/server/index.ts";
import { testApp, type McpTestClient } from "../../runtime/testing/index.ts";
import { createCounterApp } from "./fixtures/counterApp.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";

const TRANSPORTS = ["memory", "http"] as const;

const SHOW_1 = "app://customers_show/1";
const SHOW_2 = "app://customers_show/2";
/** Reads only the customers table. */
const SEARCH_ADA = "app://customers_index?search=ada";
const SEARCH_GRACE = "app://customers_index?search=grace";
/** Nobody matches, until a customer named Zed is created. */
const SEARCH_ZED = "app://customers_index?search=zed";

/** Resolves once `condition` holds; the cleanup after a disconnect happens when the server notices. */
async function eventually(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rename(mcp: McpTestClient, id: number, name: string): Promise<void> {
  assert.equal((await mcp.call("customers_rename", { id, name })).isError, undefined);
}

/** Two updates, in either order: one write can change several watched URIs at once. */
async function nextTwo(updates: { next(): Promise<string> }): Promise<string[]> {
  return [await updates.next(), await updates.next()].sort();
}

for (const protocol of PROTOCOLS) {
  for (const transport of TRANSPORTS) {
    describe(`live subscriptions on ${protocol} over ${transport}`, () => {
      const connect = async () => {
        const app = createExampleApp(":memory:");
        return { app, mcp: await testApp(app).mcp({ protocol, transport }) };
      };

      it("notifies on a create, an update and a delete that change what a watched URI returns", async () => {
        const { app, mcp } = await connect();
        const listening = await mcp.listen([SEARCH_ZED, SHOW_1, SEARCH_GRACE]);
        assert.deepEqual(listening.honored, [SEARCH_ZED, SHOW_1, SEARCH_GRACE]);
        assert.equal((await mcp.call("customers_create", { name: "Zed Shaw", email: "zed@example.com" })).isError, undefined);
        assert.equal(await listening.updates.next(), SEARCH_ZED);
        await rename(mcp, 1, "Ada King");
        assert.equal(await listening.updates.next(), SHOW_1);
        // customers_delete needs a person's confirmation over MCP; the app's own writes are seen too.
        await app.run("customers_delete", [2], { origin: Origin.App });
        assert.equal(await listening.updates.next(), SEARCH_GRACE);
        await mcp.close();
      });

      it("does not notify when a write leaves the result as it was, nor re-run for a table the command never read", async () => {
        const { mcp } = await connect();
        const listening = await mcp.listen([SHOW_1, SEARCH_ADA]);
        const before = mcp.live.stats();
        await rename(mcp, 500, "Elena Bauer-Lind");
        await mcp.live.settled();
        assert.deepEqual(delta(before, mcp.live.stats()), { reruns: 2, notifications: 0 }, "another row: both re-run, neither changed");
        assert.equal((await mcp.call("orders_create", { customer_id: 2, total: 10, placed_on: "2025-01-01" })).isError, undefined);
        await mcp.live.settled();
        assert.deepEqual(delta(before, mcp.live.stats()), { reruns: 3, notifications: 0 }, "orders: only customers_show reads them");
        await rename(mcp, 1, "Ada King");
        assert.deepEqual(await nextTwo(listening.updates), [SEARCH_ADA, SHOW_1]);
        await mcp.close();
      });

      it("watches two spellings of the same arguments as two subscriptions, re-run once and both notified", async () => {
        const { mcp } = await connect();
        const spellings = ["app://customers_index?search=ada&sort=name", "app://customers_index?sort=name&search=ada"];
        const listening = await mcp.listen(spellings);
        assert.deepEqual(listening.honored, spellings);
        assert.deepEqual(pick(mcp.live.stats(), "subscriptions", "groups", "reruns"), { subscriptions: 2, groups: 1, reruns: 0 });
        await rename(mcp, 1, "Ada King");
        assert.deepEqual(await nextTwo(listening.updates), [...spellings].sort());
        assert.equal(mcp.live.stats().reruns, 1);
        await mcp.close();
      });

      it("gives each listen of a client its own copy of an update, once", async () => {
        const { mcp } = await connect();
        const first = await mcp.listen([SHOW_1, SHOW_2]);
        const second = await mcp.listen([SHOW_1, SHOW_2]);
        await rename(mcp, 1, "Ada King");
        assert.equal(await first.updates.next(), SHOW_1);
        assert.equal(await second.updates.next(), SHOW_1);
        await rename(mcp, 2, "Grace Brewster Hopper");
        // A second copy of the first update would come before this one.
        assert.equal(await first.updates.next(), SHOW_2);
        assert.equal(await second.updates.next(), SHOW_2);
        await mcp.close();
      });

      it("honors the first 64 URIs and not the 65th", async () => {
        const { mcp } = await connect();
        const uris = Array.from({ length: 65 }, (_, i) => `app://customers_show/${i + 1}`);
        const listening = await mcp.listen(uris);
        assert.deepEqual(listening.honored, uris.slice(0, 64));
        assert.equal(mcp.live.stats().subscriptions, 64);
        await mcp.close();
      });

      it("does not honor unparseable or invalid URIs, and honors the valid ones beside them", async () => {
        const { mcp } = await connect();
        const listening = await mcp.listen([SHOW_1, "app://customers_index?serch=ada", "app://customers_show/abc", "not a uri", SEARCH_ADA, SHOW_1]);
        assert.deepEqual(listening.honored, [SHOW_1, SEARCH_ADA]);
        await rename(mcp, 1, "Ada King");
        assert.deepEqual(await nextTwo(listening.updates), [SEARCH_ADA, SHOW_1]);
        await mcp.close();
      });

      it("does not honor the URI of a command the agent was not granted", async () => {
        const { mcp } = await connect();
        const listening = await mcp.listen(["app://customers_export", SHOW_1]);
        assert.deepEqual(listening.honored, [SHOW_1]);
        await mcp.close();
      });

      it("releases a listen's subscriptions when the client closes it", async () => {
        const { mcp } = await connect();
        const listening = await mcp.listen([SHOW_1, SEARCH_ADA]);
        assert.equal(mcp.live.stats().subscriptions, 2);
        await listening.close();
        await eventually(() => mcp.live.stats().subscriptions === 0, "the registry empties");
        await mcp.close();
      });

      it("leaves the registry empty when the client disconnects", async () => {
        const { mcp } = await connect();
        await mcp.listen([SHOW_1, SEARCH_ADA]);
        assert.equal(mcp.live.stats().subscriptions, 2);
        await mcp.client.close();
        await eventually(() => mcp.live.stats().subscriptions === 0, "the registry empties");
        await mcp.close();
      });

      it("ends subscriptions on shutdown, a listen gracefully", async () => {
        const { mcp } = await connect();
        const listening = await mcp.listen([SHOW_1]);
        await mcp.stopServer();
        assert.equal(mcp.live.stats().subscriptions, 0);
        if (protocol === "2026-07-28") assert.equal(await listening.closed, "graceful");
        await mcp.close();
      });

      it("counts reads against the rate limit, and never the re-runs of a subscription", async () => {
        const mcp = await testApp(createCounterApp()).mcp({ protocol, transport });
        const listening = await mcp.listen(["app://counter_show/1"]);
        await mcp.read("app://counter_show/1");
        await mcp.read("app://counter_show/1");
        await protocolError(mcp.read("app://counter_show/1"), RATE_LIMITED);
        for (let bump = 0; bump < 3; bump++) {
          await mcp.call("counter_bump", { id: 1 });
          assert.equal(await listening.updates.next(), "app://counter_show/1");
        }
        await mcp.close();
      });
    });
  }
}

function delta(before: { reruns: number; notifications: number }, after: { reruns: number; notifications: number }) {
  return { reruns: after.reruns - before.reruns, notifications: after.notifications - before.notifications };
}

function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}
