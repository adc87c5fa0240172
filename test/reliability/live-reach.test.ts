import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { countedExampleApp, PROTOCOLS } from "./support/exampleApp.ts";
import { GUESSED_COMMANDS, GUESSED_URIS, UNKNOWN_URI } from "./support/guesses.ts";
import { WireAcks } from "./support/wireMessages.ts";
import { WireErrors } from "./support/wire.ts";

/**
 * Watching is reading: a URI an agent may not read (ungranted, confirm-only, not live, tool only,
 * unknown) cannot be watched either, and trying tells it nothing a command that does not exist
 * would not. A 2026-07-28 listen leaves the guess out of its honored subset with the
 * acknowledgement an unknown URI gets; a 2025-era resources/subscribe is refused with the bytes
 * an unknown URI gets. Either way no guessed command ever runs, not even on the writes that
 * follow.
 */
const SHOW_1 = "app://customers_show/1";
const TRANSPORTS = ["memory", "http"] as const;

for (const transport of TRANSPORTS) {
  describe(`a 2026-07-28 listen of guessed URIs honors none of them (${transport})`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    let acks: WireAcks;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol: "2026-07-28", transport });
      acks = new WireAcks(mcp);
    });
    after(() => mcp.close());

    it("beside a valid URI, each guess is left out with the acknowledgement bytes an unknown URI gets", async () => {
      const unknown = await acks.of(() => mcp.listen([UNKNOWN_URI, SHOW_1]));
      assert.deepEqual(unknown.result.honored, [SHOW_1]);
      assert.equal(unknown.acks.length, 1);
      await unknown.result.close();
      for (const [why, uri] of GUESSED_URIS) {
        const guessed = await acks.of(() => mcp.listen([uri, SHOW_1]));
        assert.deepEqual(guessed.result.honored, [SHOW_1], `${why}: ${uri}`);
        assert.deepEqual(guessed.acks, unknown.acks, `${why}: ${uri}`);
        await guessed.result.close();
      }
    });

    it("all guesses in one listen: nothing honored, nothing watched, and no guessed command runs, even after writes", async () => {
      const all = await mcp.listen([...GUESSED_URIS.map(([, uri]) => uri), UNKNOWN_URI, SHOW_1]);
      assert.deepEqual(all.honored, [SHOW_1]);
      assert.deepEqual(mcp.live.stats().subscriptions, 1);
      // Writes through the app's database: seen live, and not runs of any command.
      await counted.app.db.run("UPDATE customers SET name = 'Ada King' WHERE id = 1");
      assert.equal(await all.updates.next(), SHOW_1, "the honored URI is watched");
      await counted.app.db.run("INSERT INTO customer_tags (customer_id, tag) VALUES (1, 'vip')");
      await mcp.live.settled();
      assert.deepEqual(mcp.live.stats().groups, 1);
      assert.deepEqual(
        counted.runs.filter((run) => GUESSED_COMMANDS.includes(run.command)),
        [],
      );
      assert.ok(counted.runs.every((run) => run.command === "customers_show"));
      await all.close();
    });
  });

  describe(`a 2025-11-25 resources/subscribe of a guessed URI gets the bytes of one that does not exist (${transport})`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    let wire: WireErrors;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol: "2025-11-25", transport });
      wire = new WireErrors(mcp);
    });
    after(() => mcp.close());

    it("every guess is refused byte for byte like an unknown URI, watches nothing and runs nothing", async () => {
      const expected = await wire.of(
        mcp.client.subscribeResource({ uri: UNKNOWN_URI }),
        UNKNOWN_URI,
      );
      assert.equal(
        expected,
        '{"code":-32602,"message":"Resource not found: <name>","data":{"uri":"<name>"}}',
      );
      for (const [why, uri] of GUESSED_URIS) {
        assert.equal(
          await wire.of(mcp.client.subscribeResource({ uri }), uri),
          expected,
          `${why}: ${uri}`,
        );
      }
      assert.deepEqual(mcp.live.stats(), {
        subscriptions: 0,
        groups: 0,
        reruns: 0,
        notifications: 0,
      });
      await counted.app.db.run("UPDATE customers SET name = 'Ada King' WHERE id = 1");
      await mcp.live.settled();
      assert.deepEqual(counted.runs, []);
    });

    it("a guess after a valid subscription changes nothing about it", async () => {
      await mcp.client.subscribeResource({ uri: SHOW_1 });
      for (const [why, uri] of GUESSED_URIS)
        await assert.rejects(mcp.client.subscribeResource({ uri }), `${why}: ${uri}`);
      assert.equal(mcp.live.stats().subscriptions, 1);
      const listening = await mcp.listen([SHOW_1]);
      await counted.app.db.run("UPDATE customers SET name = 'Ada Byron' WHERE id = 1");
      assert.equal(await listening.updates.next(), SHOW_1);
      assert.deepEqual(
        counted.runs.filter((run) => run.command !== "customers_show"),
        [],
      );
      await listening.close();
      await mcp.client.unsubscribeResource({ uri: SHOW_1 });
    });
  });
}

describe("guessing through listen on both eras: the same URIs are unwatchable", () => {
  it("a URI is honored by a 2026-07-28 listen exactly when a 2025-era subscribe takes it", async () => {
    const app = countedExampleApp().app;
    const [modern, legacy] = await Promise.all(
      PROTOCOLS.map((protocol) => testApp(app).mcp({ protocol })),
    );
    const uris = [
      ...GUESSED_URIS.map(([, uri]) => uri),
      SHOW_1,
      "app://customers_index?search=ada",
      "app://orders_flagged",
    ];
    const honored = (await modern!.listen(uris)).honored;
    const subscribed: string[] = [];
    for (const uri of uris) {
      await legacy!.client.subscribeResource({ uri }).then(
        () => subscribed.push(uri),
        () => undefined,
      );
    }
    assert.deepEqual(honored, subscribed);
    assert.deepEqual(honored, [SHOW_1, "app://customers_index?search=ada", "app://orders_flagged"]);
    await modern!.close();
    await legacy!.close();
  });
});
