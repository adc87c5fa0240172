import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";

/*
 * docs/mcp.md "Cost": `LIVECMD_DEBUG=live` names, per burst of writes, each group it re-runs with
 * its command, a URI and the cause, from the plan's own reasons (the example app on SQLite): a
 * key, a whole table and why, a row a filter keeps, a key looked up off other rows (a join).
 */

describe("LIVECMD_DEBUG=live: each re-run named with its command, URI and cause", () => {
  let served: ServedCli;
  let client: Client;
  before(async () => {
    // On SQLite even in CI's PostgreSQL pass: the causes asserted are SQLite's words (rowid, its
    // program's LIKE); PostgreSQL's reasons are test/postgres/keyed-reads.test.ts's.
    served = await servedCli([], { env: { LIVECMD_DEBUG: "live", DATABASE_URL: "" } });
    client = new Client(
      { name: "live-debug", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(served.url));
  });
  after(async () => {
    await client.close();
    await served.close();
  });

  it("a rename re-runs the keyed show by its key, and the search by the table it reads whole, LIKE on name", async () => {
    const watched = [
      "app://customers_show/7",
      "app://customers_show/8",
      "app://customers_index?search=ada",
    ];
    const listen = await client.listen({ resourceSubscriptions: watched });
    assert.deepEqual(listen.honoredFilter.resourceSubscriptions, watched);
    const renamed = await client.callTool({
      name: "customers_rename",
      arguments: { id: 7, name: "Ada Seven" },
    });
    assert.equal(renamed.isError, undefined);
    const header = await served.stderrLine(/^livecmd: live: a change to customers /);
    assert.match(
      header,
      /^livecmd: live: a change to customers \(2 row images\) re-runs 2 groups:$/,
    );
    const lines = served.stderr().split("\n");
    const groups = lines.slice(lines.indexOf(header) + 1, lines.indexOf(header) + 3).sort();
    assert.deepEqual(groups, [
      "livecmd: live:   customers_index app://customers_index?search=ada: whole table customers: LIKE on name",
      "livecmd: live:   customers_show app://customers_show/7: customers.rowid = 7",
    ]);
    await listen.close();
  });

  it("an order over a threshold re-runs the watch whose filter keeps it, not the higher one; a rename of its customer re-runs it by the key it looked up", async () => {
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    const watched = ["app://orders_over/10000", "app://orders_over/1000000"];
    const listen = await client.listen({ resourceSubscriptions: watched });
    const placed = await client.callTool({
      name: "orders_create",
      arguments: { customer_id: 9, total: 20000, placed_on: "2026-01-05" },
    });
    assert.equal(placed.isError, undefined);
    const filtered = await served.stderrLine(/^livecmd: live: {3}orders_over .*: orders where /);
    assert.equal(
      filtered,
      "livecmd: live:   orders_over app://orders_over/10000: orders where total >= 10000 AND (conditions livecmd cannot test)",
    );
    assert.ok(
      served
        .stderr()
        .includes("livecmd: live: a change to orders (1 row image) re-runs 1 group:\n"),
    );
    // The re-run looks customer 9 up; only then does its rename concern the watch.
    while (!updated.includes(watched[0]!)) await new Promise((resolve) => setTimeout(resolve, 10));
    const renamed = await client.callTool({
      name: "customers_rename",
      arguments: { id: 9, name: "Nine Again" },
    });
    assert.equal(renamed.isError, undefined);
    assert.equal(
      await served.stderrLine(/^livecmd: live: {3}orders_over .*: customers\./),
      "livecmd: live:   orders_over app://orders_over/10000: customers.rowid = 9 (looked up from orders.customer_id)",
    );
    await listen.close();
  });
});
