import assert from "node:assert/strict";
import { lineEnvironment } from "../helpers/lineEnvironment.ts";
import { describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createExampleApp } from "../../example/app.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { RATE_LIMITED, serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { createCounterApp } from "./fixtures/counterApp.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { RECONNECT_GRACE_MS } from "../../packages/livecmd/runtime/server/sessions/session.ts";

const TRANSPORTS = ["memory", "http"] as const;
const SERVE = ["packages/livecmd/bin/livecmd.js", "serve", "--app", "example/app.ts"];
const FRESH_DATABASE = { LIVECMD_EXAMPLE_DB: ":memory:" };

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
        const listening = await mcp.listen([SEARCH_ZED, SHOW_1, SEARCH_GRACE, SHOW_2]);
        assert.deepEqual(listening.honored, [SEARCH_ZED, SHOW_1, SEARCH_GRACE, SHOW_2]);
        assert.equal(
          (await mcp.call("customers_create", { name: "Zed Shaw", email: "zed@example.com" }))
            .isError,
          undefined,
        );
        assert.equal(await listening.updates.next(), SEARCH_ZED);
        await rename(mcp, 1, "Ada King");
        assert.equal(await listening.updates.next(), SHOW_1);
        // customers_delete needs a person's confirmation over MCP; the app's own writes are seen too.
        await app.run("customers_delete", [2], { origin: Origin.App });
        // Reading customer 2 now fails: a change too.
        assert.deepEqual(await nextTwo(listening.updates), [SEARCH_GRACE, SHOW_2]);
        await mcp.close();
      });

      it("tells with each update the version a read of the URI now returns, and none once reading it fails", async () => {
        const { app, mcp } = await connect();
        const listening = await mcp.listen([SHOW_1, SHOW_2]);
        await rename(mcp, 1, "Ada King");
        const update = await listening.updates.nextUpdate();
        assert.deepEqual(update, { uri: SHOW_1, version: await mcp.version(SHOW_1) });
        await app.run("customers_delete", [2], { origin: Origin.App });
        assert.deepEqual(await listening.updates.nextUpdate(), { uri: SHOW_2 });
        await mcp.close();
      });

      it("does not notify when a write leaves the result as it was, nor re-run for a table the command never read", async () => {
        const { mcp } = await connect();
        const listening = await mcp.listen([SHOW_1, SEARCH_ADA]);
        const before = mcp.live.stats();
        await rename(mcp, 500, "Elena Bauer-Lind");
        await mcp.live.settled();
        // customers_show/1 reads customers by key 1 only (the rowid on SQLite, the primary key on
        // PostgreSQL): a write to row 500 re-runs the search alone.
        assert.deepEqual(
          delta(before, mcp.live.stats()),
          { reruns: 1, notifications: 0 },
          "another row: what read it re-runs, nothing changed",
        );
        assert.equal(
          (await mcp.call("orders_create", { customer_id: 2, total: 10, placed_on: "2025-01-01" }))
            .isError,
          undefined,
        );
        await mcp.live.settled();
        assert.deepEqual(
          delta(before, mcp.live.stats()),
          { reruns: 1, notifications: 0 },
          "orders: only customers_show reads them, and only customer 2's",
        );
        await rename(mcp, 1, "Ada King");
        assert.deepEqual(await nextTwo(listening.updates), [SEARCH_ADA, SHOW_1]);
        await mcp.close();
      });

      it("watches two spellings of the same arguments as two subscriptions, re-run once and both notified", async () => {
        const { mcp } = await connect();
        const spellings = [
          "app://customers_index?search=ada&sort=name",
          "app://customers_index?sort=name&search=ada",
        ];
        const listening = await mcp.listen(spellings);
        assert.deepEqual(listening.honored, spellings);
        assert.deepEqual(pick(mcp.live.stats(), "subscriptions", "groups", "reruns"), {
          subscriptions: 2,
          groups: 1,
          reruns: 0,
        });
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
        const listening = await mcp.listen([
          SHOW_1,
          "app://customers_index?serch=ada",
          "app://customers_show/abc",
          "not a uri",
          SEARCH_ADA,
          SHOW_1,
        ]);
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
        // A 2025 session keeps its subscriptions for a while, in case its GET stream comes back.
        const grace = protocol === "2025-11-25" && transport === "http" ? RECONNECT_GRACE_MS : 0;
        await eventually(
          () => mcp.live.stats().subscriptions === 0,
          "the registry empties",
          // CI, loaded, on PostgreSQL once took more than 2 s past the grace.
          grace + 10_000,
        );
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

function delta(
  before: { reruns: number; notifications: number },
  after: { reruns: number; notifications: number },
) {
  return {
    reruns: after.reruns - before.reruns,
    notifications: after.notifications - before.notifications,
  };
}

function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

for (const transport of TRANSPORTS) {
  describe(`resources/subscribe on 2025-11-25 over ${transport}`, () => {
    it("refuses a URI a read refuses, with the same error", async () => {
      const mcp = await testApp(createExampleApp(":memory:")).mcp({
        protocol: "2025-11-25",
        transport,
      });
      for (const uri of [
        "app://customers_index?serch=ada",
        "app://customers_show/abc",
        "app://customers_export",
        "not a uri",
      ]) {
        const read = await protocolError(mcp.read(uri), -32602);
        const subscribe = await protocolError(mcp.client.subscribeResource({ uri }), -32602);
        assert.deepEqual([subscribe.message, subscribe.data], [read.message, read.data], uri);
      }
      assert.equal(mcp.live.stats().subscriptions, 0);
      await mcp.close();
    });

    it("refuses a 65th URI on a connection with the limit, and takes one again after an unsubscribe", async () => {
      const mcp = await testApp(createExampleApp(":memory:")).mcp({
        protocol: "2025-11-25",
        transport,
      });
      for (let id = 1; id <= 64; id++)
        await mcp.client.subscribeResource({ uri: `app://customers_show/${id}` });
      const refused = await protocolError(
        mcp.client.subscribeResource({ uri: "app://customers_show/65" }),
        -32602,
      );
      assert.match(
        refused.message,
        /^Subscription limit reached: the number of URIs one connection may watch is 64; end a subscription before subscribing to app:\/\/customers_show\/65$/,
      );
      assert.deepEqual(refused.data, { limit: 64, scope: "perConnection" });
      await mcp.client.unsubscribeResource({ uri: SHOW_1 });
      await mcp.client.subscribeResource({ uri: "app://customers_show/65" });
      await mcp.close();
    });

    it("counts the same URI twice as one subscription, and ignores an unsubscribe of a URI never subscribed", async () => {
      const mcp = await testApp(createExampleApp(":memory:")).mcp({
        protocol: "2025-11-25",
        transport,
      });
      assert.deepEqual(await mcp.client.subscribeResource({ uri: SHOW_1 }), {});
      assert.deepEqual(await mcp.client.subscribeResource({ uri: SHOW_1 }), {});
      assert.equal(mcp.live.stats().subscriptions, 1);
      assert.deepEqual(await mcp.client.unsubscribeResource({ uri: SHOW_2 }), {});
      assert.equal(mcp.live.stats().subscriptions, 1);
      await mcp.client.unsubscribeResource({ uri: SHOW_1 });
      await eventually(() => mcp.live.stats().subscriptions === 0, "the registry empties");
      await mcp.close();
    });
  });
}

describe("subscriptions/listen limits", () => {
  it("counts the URIs of a stdio connection's open listens together against 64", async () => {
    const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol: "2026-07-28" });
    const first = await mcp.listen(
      Array.from({ length: 60 }, (_, i) => `app://customers_show/${i + 1}`),
    );
    const second = await mcp.listen(
      Array.from({ length: 10 }, (_, i) => `app://customers_show/${i + 61}`),
    );
    assert.deepEqual(second.honored, [
      "app://customers_show/61",
      "app://customers_show/62",
      "app://customers_show/63",
      "app://customers_show/64",
    ]);
    await first.close();
    await eventually(
      () => mcp.live.stats().subscriptions === 4,
      "the first listen's URIs are released",
    );
    assert.deepEqual((await mcp.listen([SHOW_1])).honored, [SHOW_1]);
    await mcp.close();
  });

  it("applies 64 to each HTTP listen, which is all a stateless 2026-07-28 client holds open", async () => {
    const mcp = await testApp(createExampleApp(":memory:")).mcp({
      protocol: "2026-07-28",
      transport: "http",
    });
    await mcp.listen(Array.from({ length: 64 }, (_, i) => `app://customers_show/${i + 1}`));
    assert.deepEqual((await mcp.listen([SHOW_1])).honored, [SHOW_1]);
    await mcp.close();
  });
});

describe("updates reach only the clients that watch the URI", () => {
  it("delivers a change to every HTTP client listening to its URI, once, and to no other", async () => {
    const app = createExampleApp(":memory:");
    const serving = await serveHttp(app, { port: 0 });
    const clients = await Promise.all(
      [SHOW_1, SHOW_1, SHOW_2].map(async (uri) => listeningClient(serving.url, uri)),
    );
    await rename(clients[0]!.mcp, 1, "Ada King");
    await clients[0]!.next();
    await clients[1]!.next();
    await rename(clients[0]!.mcp, 2, "Grace Brewster Hopper");
    await clients[2]!.next();
    await serving.live.settled();
    assert.deepEqual(
      clients.map((client) => client.received),
      [[SHOW_1], [SHOW_1], [SHOW_2]],
    );
    for (const client of clients) await client.mcp.close();
    await serving.close();
  });
});

/** An SDK client of the server at `url`, listening to one URI and recording every update it gets. */
async function listeningClient(url: URL, uri: string) {
  const client = new Client(
    { name: "e2e", version: "0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const received: string[] = [];
  const waiting: (() => void)[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    received.push(notification.params.uri);
    waiting.shift()?.();
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  const subscription = await client.listen({ resourceSubscriptions: [uri] });
  assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [uri]);
  let seen = 0;
  return {
    received,
    mcp: {
      call: (tool: string, args: Record<string, unknown>) =>
        client.callTool({ name: tool, arguments: args }),
      close: async () => {
        await subscription.close();
        await client.close();
      },
    } as unknown as McpTestClient,
    /** Resolves once one more update than before arrived. */
    next: () =>
      received.length > seen++
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

describe("`livecmd serve` on stdio, a real child process", () => {
  for (const [era, negotiation] of [
    ["2026-07-28", { mode: { pin: "2026-07-28" } }],
    ["2025-11-25", { mode: "legacy" }],
  ] as const) {
    it(`notifies the SDK client of the rename it called (${era})`, async () => {
      const client = new Client({ name: "e2e", version: "0" }, { versionNegotiation: negotiation });
      const updates = new Promise<string[]>((resolve) => {
        const received: string[] = [];
        client.setNotificationHandler("notifications/resources/updated", (notification) => {
          if (received.push(notification.params.uri) === 2) resolve(received.sort());
        });
      });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: SERVE,
          env: { ...lineEnvironment(), ...FRESH_DATABASE },
          stderr: "ignore",
        }),
      );
      if (era === "2026-07-28") {
        const subscription = await client.listen({
          resourceSubscriptions: [SHOW_1, "app://customers_index?serch=ada", SEARCH_ADA],
        });
        assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [SHOW_1, SEARCH_ADA]);
      } else {
        await client.subscribeResource({ uri: SHOW_1 });
        await client.subscribeResource({ uri: SEARCH_ADA });
      }
      await client.callTool({ name: "customers_rename", arguments: { id: 1, name: "Ada King" } });
      assert.deepEqual(await updates, [SEARCH_ADA, SHOW_1]);
      await client.close();
    });
  }
});
