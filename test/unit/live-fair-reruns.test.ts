import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { createExampleApp } from "../../example/app.ts";
import { FairRerunQueue } from "../../packages/livecmd/runtime/live/fairRerunQueue.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { ServedApp } from "../../packages/livecmd/runtime/server/served/servedApp.ts";

const principal = (clientId: string): AuthInfo => ({ token: clientId, clientId, scopes: [] });

test("live: after a write, one holder's re-run takes its turn with another's 1,024: it starts second, not after them all", async () => {
  const app = createExampleApp(":memory:");
  const { room } = new ServedApp(app);
  // The order re-runs start in: what the queue decides, whatever the database's pace after.
  const started: string[] = [];
  app.use((invocation, next) => {
    if (invocation.origin === Origin.Agent) started.push(invocation.command);
    return next();
  });
  // Bob's share: 1,024 distinct searches in 16 listens, each its own group, every one re-run by
  // a write to any customer.
  for (let listen = 0; listen < 16; listen++) {
    const uris = Array.from(
      { length: 64 },
      (_, n) => `app://customers_index?search=nobody%20${listen * 64 + n}`,
    );
    assert.ok("watched" in (await room.openListen(uris, principal("bob"), () => {})));
  }
  let told = false;
  const alice = await room.openListen(["app://customers_show/1"], principal("alice"), () => {
    told = true;
  });
  assert.ok("watched" in alice);
  started.length = 0;
  await app.run("customers_rename", [1, "Ada King"], { origin: "app" });
  await room.registry.settled();
  assert.equal(started.length, 1025, "the write re-ran every group");
  assert.ok(told, "alice was told");
  // Hers first or second (after bob's first group), by the turn of the holders: not after bob's 1,024.
  const alicesTurn = started.indexOf("customers_show");
  assert.ok(alicesTurn >= 0 && alicesTurn <= 1, `alice's re-run started ${alicesTurn + 1}th`);
});

test("live: the re-run queue takes holders in turn, and a group several hold starts once, at the first of their turns", () => {
  const queue = new FairRerunQueue<string>();
  for (const group of ["b1", "b2", "b3", "b4"]) queue.add(group, ["bob"]);
  queue.add("a1", ["alice"]);
  queue.add("shared", ["carol", "bob"]);
  queue.add("b1", ["bob"]);
  queue.add("nobody's", []);
  const order: string[] = [];
  while (queue.size > 0) order.push(queue.take()!);
  assert.deepEqual(order, ["b1", "a1", "shared", "nobody's", "b2", "b3", "b4"]);
  assert.equal(queue.take(), undefined);
});
