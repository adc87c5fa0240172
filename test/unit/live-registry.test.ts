import assert from "node:assert/strict";
import { test } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import BetterSqlite3 from "better-sqlite3";
import { sqliteHandle } from "../helpers/sqliteHandle.ts";
import { command, defineApp, type DatabaseSource } from "../../packages/livecmd/runtime/index.ts";
import { unseenText } from "../../packages/livecmd-kit/cli/inspectReads.ts";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import type { Subscriber } from "../../packages/livecmd/runtime/live/watchGroups.ts";
import {
  describeRerunFailure,
  type RerunFailure,
} from "../../packages/livecmd/runtime/live/rerunFailures.ts";

function recorder(uri: string): Subscriber & { received: string[] } {
  const received: string[] = [];
  return { uri, received, notify: (sent) => received.push(sent) };
}

async function write(app: App, command: string, ...args: unknown[]): Promise<void> {
  await app.run(command, args, { origin: "app" });
}

function setup(coalesce = true) {
  const app = createExampleApp(":memory:");
  return { app, live: new LiveRegistry(app, { coalesce, onError: () => {} }) };
}

test("live: a write that changes what a subscription returns notifies it, with the URI it sent", async () => {
  const { app, live } = setup();
  const show = recorder("app://customers_show/1");
  const search = recorder("app://customers_index?search=ada");
  await live.add("customers_show", [1], show);
  await live.add("customers_index", [{ search: "ada" }], search);
  await write(app, "customers_rename", 1, "Ada King");
  await live.settled();
  assert.deepEqual(show.received, ["app://customers_show/1"]);
  assert.deepEqual(search.received, ["app://customers_index?search=ada"]);
});

test("live: a write to another row neither re-runs nor notifies a read of one row", async () => {
  const { app, live } = setup();
  const show = recorder("app://customers_show/1");
  await live.add("customers_show", [1], show);
  await write(app, "customers_rename", 500, "Somebody Else");
  await live.settled();
  assert.deepEqual(show.received, []);
  assert.equal(live.stats().reruns, 0);
});

test("live: a write to a table the command never read does not even re-run it", async () => {
  const { app, live } = setup();
  const flagged = recorder("app://orders_flagged");
  await live.add("orders_flagged", [undefined], flagged);
  await app.db.run("INSERT INTO customer_tags (customer_id, tag) VALUES (1, 'vip-test')");
  await live.settled();
  assert.equal(live.stats().reruns, 0);
  assert.deepEqual(flagged.received, []);
});

test("live: two spellings of the same arguments are two subscriptions in one group, re-run once, both notified", async () => {
  const { app, live } = setup();
  const a = recorder("app://customers_index?search=ada&sort=name");
  const b = recorder("app://customers_index?sort=name&search=ada");
  await live.add("customers_index", [{ search: "ada", sort: "name" }], a);
  await live.add("customers_index", [{ search: "ada", sort: "name" }], b);
  assert.deepEqual(live.stats(), { subscriptions: 2, groups: 1, reruns: 0, notifications: 0 });
  await write(app, "customers_rename", 1, "Ada King");
  await live.settled();
  assert.equal(live.stats().reruns, 1);
  assert.deepEqual([a.received, b.received], [[a.uri], [b.uri]]);
});

test(
  "live: a burst of writes is coalesced into one re-run per subscription; without coalescing each write re-runs",
  {
    skip: process.env.DATABASE_URL
      ? "PostgreSQL's feed sends one notification per table per transaction, whenever it commits; test/postgres/change-feed.test.ts checks one re-run per transaction"
      : false,
  },
  async () => {
    const counts: number[] = [];
    for (const coalesce of [true, false]) {
      const { app, live } = setup(coalesce);
      await live.add("customers_show", [1], recorder("app://customers_show/1"));
      for (let i = 0; i < 20; i += 1)
        await app.db.run("UPDATE customers SET balance = balance + 1 WHERE id = 1");
      await live.settled();
      counts.push(live.stats().reruns);
    }
    assert.deepEqual(counts, [1, 20]);
  },
);

test("live: a create, an update and a delete each notify a subscription whose result they change", async () => {
  const { app, live } = setup();
  const over = recorder("app://orders_over/100000");
  await live.add("orders_over", [100000, undefined], over);
  await write(app, "orders_create", { customer_id: 3, total: 250000, placed_on: "2025-06-01" });
  await live.settled();
  await app.db.run("UPDATE orders SET total = 300000 WHERE total = 250000");
  await live.settled();
  await write(app, "customers_delete", 3);
  await live.settled();
  assert.equal(over.received.length, 3);
});

test("live: a re-run that throws keeps the subscription, reports the error and notifies once, since a read now fails", async () => {
  const app = createExampleApp(":memory:");
  const errors: string[] = [];
  const live = new LiveRegistry(app, {
    onError: ({ error }) => errors.push((error as Error).message),
  });
  const show = recorder("app://customers_show/7");
  await live.add("customers_show", [7], show);
  await write(app, "customers_delete", 7);
  await live.settled();
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /no customer with id 7/);
  assert.equal(live.stats().subscriptions, 1);
  assert.deepEqual(show.received, [show.uri]);
  app.changed("customers");
  await live.settled();
  assert.deepEqual(show.received, [show.uri], "failing again is no change");
});

test("live: re-runs that throw in one burst are reported once per command, with how many threw and the first", async () => {
  const app = createExampleApp(":memory:");
  const failures: RerunFailure[] = [];
  const live = new LiveRegistry(app, { onError: (failure) => failures.push(failure) });
  // Three customers watched: three groups, all failing after their deletes in one burst. One
  // transaction, so that on PostgreSQL too the deletes arrive together (the feed delivers a
  // transaction's changes at its commit): each delete re-runs only its own customer's group.
  for (const id of [7, 8, 9])
    await live.add("customers_show", [id], recorder(`app://customers_show/${id}`));
  await app.db.transaction(async () => {
    for (const id of [7, 8, 9]) await write(app, "customers_delete", id);
  });
  await live.settled();
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.command, "customers_show");
  assert.equal(failures[0]!.failures, 3);
  assert.match(
    describeRerunFailure(failures[0]!),
    /^re-running customers_show\(7\) for its subscribers failed: .*no customer with id 7.*; so did 2 more re-runs of customers_show in this burst; the subscriptions stay$/,
  );
});

test("live: the failure a burst reports first is the re-run that started first, however the re-runs end", async () => {
  // Re-runs on a pool of connections end in any order: here the first to start throws last.
  let failing = false;
  const item = command({ live: true }, async (_ctx, id: number) => {
    if (!failing) return { id };
    await new Promise((resolve) => setTimeout(resolve, (4 - id) * 15));
    throw new Error(`item ${id} is gone`);
  });
  const app = defineApp({ name: "items", commands: { item }, agent: { grant: [item] } });
  const failures: RerunFailure[] = [];
  const live = new LiveRegistry(app, {
    onError: (failure) => failures.push(failure),
    onUnseen: () => {},
  });
  for (const id of [1, 2, 3]) await live.add("item", [id], recorder(`items://item/${id}`));
  failing = true;
  app.changed("anything");
  await live.settled();
  assert.equal(failures.length, 1);
  assert.equal(
    describeRerunFailure(failures[0]!),
    "re-running item(1) for its subscribers failed: item 1 is gone; so did 2 more re-runs of item in this burst; the subscriptions stay",
  );
  live.close();
  await app.close();
});

test("live: re-runs after a change yield to the event loop, at most 32 started in one turn", async () => {
  const { app, live } = setup();
  for (let id = 1; id <= 200; id++)
    await live.add("customers_show", [id], recorder(`app://customers_show/${id}`));
  // Any row of customers: every one of the 200 re-runs (a rename re-runs only its customer's).
  app.changed("customers");
  const rerunsPerTurn: number[] = [];
  let before = 0;
  while (live.stats().reruns < 200) {
    await new Promise((resolve) => setImmediate(resolve));
    const reruns = live.stats().reruns;
    rerunsPerTurn.push(reruns - before);
    before = reruns;
  }
  await live.settled();
  assert.ok(Math.max(...rerunsPerTurn) <= 32, `re-runs per turn: ${rerunsPerTurn.join(" ")}`);
  assert.equal(live.stats().reruns, 200);
});

test(
  "live: a write through the raw connection is seen from the change log; app.changed re-runs readers of a table",
  {
    skip: process.env.DATABASE_URL
      ? "on PostgreSQL no write is outside what the change feed sees (test/postgres covers that)"
      : false,
  },
  async () => {
    const { app, live } = setup();
    const show = recorder("app://customers_show/1");
    await live.add("customers_show", [1], show);
    sqliteHandle(app).prepare("UPDATE customers SET name = 'Ada Byron' WHERE id = 1").run();
    await app.db.caughtUp();
    await live.settled();
    assert.deepEqual(show.received, [show.uri]);
    const reruns = live.stats().reruns;
    app.changed("customers");
    await live.settled();
    assert.equal(live.stats().reruns, reruns + 1, "app.changed re-runs every reader of the table");
  },
);

test("live: removing the last subscription of a group forgets it", async () => {
  const { live } = setup();
  const remove = await live.add("customers_show", [1], recorder("app://customers_show/1"));
  remove();
  assert.deepEqual(live.stats(), { subscriptions: 0, groups: 0, reruns: 0, notifications: 0 });
});

test("live: a command whose run livecmd saw no statement of is named once, saying what re-runs it: every write, or with no database only app.changed", async () => {
  let value = 1;
  const counter = command({ live: true }, async () => ({ value }));
  const cases: [database: DatabaseSource | undefined, said: RegExp][] = [
    [
      () => new BetterSqlite3(":memory:"),
      /^counter is watched, but its run made no statement through the better-sqlite3 connection to a database in memory, where livecmd watches \(it saw 0 statements of other runs there\), so every write re-runs it: give livecmd the handle/,
    ],
    [
      undefined,
      /^counter is watched, but the app has no database, so livecmd sees no write: only app\.changed\(table\) re-runs a watch of it; give defineApp\(\{ database \}\)/,
    ],
  ];
  for (const [database, said] of cases) {
    const app = defineApp({
      name: "counting",
      commands: { counter },
      agent: { grant: [counter] },
      ...(database && { database }),
    });
    const warnings: string[] = [];
    const live = new LiveRegistry(app, { onUnseen: (warning) => warnings.push(warning) });
    const watcher = recorder("counting://counter");
    await live.add("counter", [], watcher);
    await live.add("counter", [], recorder("counting://counter?again"));
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0]!, said);
    assert.match(
      unseenText(app),
      database
        ? /^reads nothing livecmd can see: every write/
        : /^reads nothing livecmd can see: the app has no database/,
      "inspect --reads and --cost say the same",
    );
    value += 1;
    app.changed("anything");
    await live.settled();
    assert.deepEqual(watcher.received, ["counting://counter"], "app.changed re-runs it either way");
    live.close();
    await app.close();
  }
});
