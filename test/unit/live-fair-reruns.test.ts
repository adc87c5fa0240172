import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { createExampleApp } from "../../example/app.ts";
import { FairRerunQueue } from "../../packages/livecmd/runtime/live/fairRerunQueue.ts";
import { ServedApp } from "../../packages/livecmd/runtime/server/served/servedApp.ts";

const principal = (clientId: string): AuthInfo => ({ token: clientId, clientId, scopes: [] });

test("live: after a write, one holder's re-run takes its turn with another's 1,024: it starts in the first slice, not after them all", async () => {
  const app = createExampleApp(":memory:");
  const { room } = new ServedApp(app);
  // Bob's share: 1,024 distinct searches in 16 listens, each its own group, every one re-run by
  // a write to any customer.
  for (let listen = 0; listen < 16; listen++) {
    const uris = Array.from(
      { length: 64 },
      (_, n) => `app://customers_index?search=nobody%20${listen * 64 + n}`,
    );
    assert.ok("watched" in (await room.openListen(uris, principal("bob"), () => {})));
  }
  const before = room.registry.stats().reruns;
  let startedByAlicesNews: number | undefined;
  const alice = await room.openListen(["app://customers_show/1"], principal("alice"), () => {
    startedByAlicesNews ??= room.registry.stats().reruns - before;
  });
  assert.ok("watched" in alice);
  await app.run("customers_rename", [1, "Ada King"], { origin: "app" });
  await room.registry.settled();
  assert.equal(room.registry.stats().reruns - before, 1025, "the write re-ran every group");
  assert.ok(startedByAlicesNews !== undefined, "alice was told");
  // Her run starts second (bob's first group, then hers); by the time it ends at most the runs
  // kept in flight (32) have started, not bob's 1,024.
  assert.ok(startedByAlicesNews <= 32, `${startedByAlicesNews} re-runs started by alice's news`);
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
