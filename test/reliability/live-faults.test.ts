import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as customers from "../../example/commands/customers.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import type { Int } from "../../packages/livecmd/runtime/uri/int.ts";
import type { Context } from "../../packages/livecmd/runtime/model/context.ts";
import { serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import {
  testApp,
  type Listening,
  type McpTestClient,
} from "../../packages/livecmd/runtime/testing/index.ts";
import {
  countedExampleApp,
  protocolError,
  PROTOCOLS,
  readText,
  type Protocol,
} from "./support/exampleApp.ts";
import { StderrLines, until, watch, type Watcher } from "./support/watchers.ts";
import { RECONNECT_GRACE_MS } from "../../packages/livecmd/runtime/server/sessions/session.ts";

const TRANSPORTS = ["memory", "http"] as const;
const show = (id: number) => `app://customers_show/${id}`;
const SEARCH_ADA = "app://customers_index?search=ada";

/** What livecmd prints when a re-run of `customers_show(id)` fails with an error whose message starts with `message`. */
const rerunFailed = (id: number, message: string) =>
  new RegExp(
    `^livecmd: re-running customers_show\\(${id}\\) for its subscribers failed: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^]*; the subscriptions stay$`,
  );

/** One line for the burst: the first failure, and how many more re-runs of the command failed. */
function assertReportedOnce(lines: string[]): void {
  assert.equal(lines.length, 1, lines.join("\n"));
  const first = RERUN_FAULTS.find(([id, , , message]) => rerunFailed(id, message).test(lines[0]!));
  assert.ok(first, `the line names one of the faults: ${lines[0]}`);
  assert.ok(
    lines[0]!.includes(
      `; so did ${RERUN_FAULTS.length - 1} more re-runs of customers_show in this burst;`,
    ),
    lines[0],
  );
}

const circular: Record<string, unknown> = { id: 0 };
circular.self = circular;

/**
 * Ways a command can fail during a re-run (the first run, at subscribe time, succeeds): each
 * customer id of the table fails its own way while armed.
 */
const RERUN_FAULTS: [id: number, what: string, fault: () => unknown, message: string][] = [
  [
    1,
    "throws an Error",
    () => {
      throw new Error("re-run boom");
    },
    "re-run boom",
  ],
  [
    2,
    "rejects asynchronously with a TypeError",
    async () => {
      await null;
      throw new TypeError("async re-run boom");
    },
    "async re-run boom",
  ],
  [
    3,
    "throws a string",
    () => {
      throw "a string";
    },
    "a string",
  ],
  [
    4,
    "throws undefined",
    () => {
      throw undefined;
    },
    "undefined",
  ],
  [
    5,
    "returns a value JSON cannot hold (a BigInt)",
    () => ({ id: 5, balance: 5n }),
    "Do not know how to serialize a BigInt",
  ],
  [6, "returns a circular value", () => circular, "Converting circular structure to JSON"],
];
const HEALTHY = 7;
const armed = new Set<number>();

/** Holds re-runs of chosen ids inside the handler until released: a re-run in flight, for sure. */
class Hold {
  readonly ids = new Set<number>();
  entered!: Promise<void>;
  #enter!: () => void;
  #opened!: Promise<void>;
  #open!: () => void;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.ids.clear();
    this.entered = new Promise((resolve) => (this.#enter = resolve));
    this.#opened = new Promise((resolve) => (this.#open = resolve));
  }

  async pass(): Promise<void> {
    this.#enter();
    await this.#opened;
  }

  release(): void {
    this.#open();
  }
}
const hold = new Hold();

const showCustomer = customers.customers_show.handler as (ctx: Context, id: Int) => unknown;
const faultyShow = command(
  { live: true, view: true, title: "Customer" },
  async (ctx: Context, id: Int): Promise<unknown> => {
    if (hold.ids.has(id)) await hold.pass();
    const fault = armed.has(id) ? RERUN_FAULTS.find(([faulty]) => faulty === id)?.[2] : undefined;
    return fault ? fault() : showCustomer(ctx, id);
  },
);

/** `count` updates of a listen, sorted: one write can change several watched URIs at once. */
async function nextUpdates(
  updates: { next(timeoutMs?: number): Promise<string> },
  count: number,
): Promise<string[]> {
  const uris: string[] = [];
  for (let i = 0; i < count; i++) uris.push(await updates.next(3000));
  return uris.sort();
}

const sorted = (uris: string[]) => [...uris].sort();

const stderr = new StderrLines();
before(() => stderr.start());
after(() => stderr.stop());
afterEach(() => {
  armed.clear();
  hold.release();
  hold.reset();
});

for (const protocol of PROTOCOLS) {
  for (const transport of TRANSPORTS) {
    describe(`a command that throws during a re-run (${protocol} over ${transport})`, () => {
      it("keeps every subscription, reports the failures once per burst, tells the client once that the read now fails, and notifies again once it succeeds", async () => {
        const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
        const db = counted.app.db;
        const mcp = await testApp(counted.app).mcp({ protocol, transport });
        const watched = [...RERUN_FAULTS.map(([id]) => show(id)), show(HEALTHY)];
        const listening = await mcp.listen(watched);
        assert.deepEqual(listening.honored, watched);
        stderr.take();

        // One write to every watched customer re-runs all seven.
        const everyWatched = `UPDATE customers SET balance = balance + 1 WHERE id IN (${[...RERUN_FAULTS.map(([id]) => id), HEALTHY].join(", ")})`;
        for (const [id] of RERUN_FAULTS) armed.add(id);
        await db.run(everyWatched);
        assert.deepEqual(
          await nextUpdates(listening.updates, watched.length),
          sorted(watched),
          "each failing URI once (a read of it now fails), and the changed one",
        );
        await mcp.live.settled();
        assertReportedOnce(stderr.take());

        for (const [id, what, , message] of RERUN_FAULTS) {
          const error = await protocolError(mcp.read(show(id)), -32603);
          assert.ok(error.message.includes(message), `${what}: ${error.message}`);
        }
        assert.equal(
          JSON.parse(readText(await mcp.read(show(2 * HEALTHY)))).id,
          2 * HEALTHY,
          "the server keeps serving reads",
        );
        assert.equal(mcp.live.stats().subscriptions, watched.length, "the subscriptions stay");

        // Failing again is no change: only the healthy URI is told, the failures are reported again.
        await db.run(everyWatched);
        assert.equal(await listening.updates.next(3000), show(HEALTHY));
        await mcp.live.settled();
        assertReportedOnce(stderr.take());

        // Once they succeed again, with a result other than the failure: every one is told.
        armed.clear();
        await db.run(everyWatched);
        assert.deepEqual(
          await nextUpdates(listening.updates, watched.length),
          sorted(watched),
          "no update was sent while failing again (it would come first)",
        );
        await mcp.live.settled();
        assert.deepEqual(stderr.take(), []);

        // And later changes of one of them notify as if nothing had happened.
        assert.equal(
          (await mcp.call("customers_rename", { id: 1, name: "Ada King" })).isError,
          undefined,
        );
        assert.equal(await listening.updates.next(3000), show(1));
        assert.equal(JSON.parse(readText(await mcp.read(show(1)))).name, "Ada King");
        assert.equal(mcp.live.stats().subscriptions, watched.length);
        await mcp.close();
        assert.deepEqual(stderr.take(), [], "closing reports nothing");
      });
    });
  }
}

/** Renames customers 1..count (unawaited): writes whose re-runs are in flight when something else happens. */
function burstOfRenames(
  mcp: Pick<McpTestClient, "call">,
  count: number,
  tag: string,
): Promise<void> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const result = await mcp.call("customers_rename", {
        id: i + 1,
        name: `Renamed ${tag} ${i + 1}`,
      });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
    }),
  ).then(() => undefined);
}

/** A 2026-07-28 SDK client of `url` that only calls tools. */
async function writerOf(
  url: URL,
): Promise<Pick<McpTestClient, "call"> & { close(): Promise<void> }> {
  const client = new Client(
    { name: "writer", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    call: (name, args = {}) =>
      client.callTool({ name, arguments: args }) as ReturnType<McpTestClient["call"]>,
    close: () => client.close(),
  };
}

/** Resolves once `watcher` got an update of `uri` after its first `mark` ones. */
const updatedSince = (watcher: Watcher, mark: number, uri: string) =>
  until(
    () => watcher.arrivals.slice(mark).some((arrival) => arrival.uri === uri),
    `${watcher.protocol} watcher gets ${uri}`,
  );

describe("a client that vanishes mid-listen over HTTP", () => {
  it("has its subscriptions dropped (both eras, a re-run in flight), while the other clients keep getting updates and the server reports nothing", async () => {
    const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
    const errors: string[] = [];
    const serving = await serveHttp(counted.app, {
      port: 0,
      onerror: (error) => void errors.push(error.message),
    });
    const stayers = [
      await watch(serving.url, "2026-07-28", [show(1), show(3), SEARCH_ADA], "stayer"),
      await watch(serving.url, "2025-11-25", [show(2), show(3)], "stayer"),
    ];
    const held = 5;
    const leavers = [
      await watch(
        serving.url,
        "2026-07-28",
        Array.from({ length: 64 }, (_, i) => show(i + 1)),
        "leaver",
      ),
      await watch(serving.url, "2026-07-28", [show(3), SEARCH_ADA], "leaver"),
      await watch(
        serving.url,
        "2025-11-25",
        Array.from({ length: 40 }, (_, i) => show(i + 1)),
        "leaver",
      ),
    ];
    assert.equal(serving.live.stats().subscriptions, held + 64 + 2 + 40);
    const writer = await writerOf(serving.url);
    try {
      hold.ids.add(3);
      const burst = burstOfRenames(writer, 30, "during");
      await hold.entered;
      const marks = stayers.map((stayer) => stayer.arrivals.length);
      for (const leaver of leavers) leaver.vanish();
      // A vanished 2025 session keeps its subscriptions for RECONNECT_GRACE_MS, for a reconnect.
      await until(
        () => serving.live.stats().subscriptions === held,
        "the registry holds only the stayers' subscriptions",
        RECONNECT_GRACE_MS + 5000,
      );
      hold.release();
      await burst;
      await serving.live.settled();
      assert.equal(serving.live.stats().subscriptions, held);
      assert.equal(
        await leavers[0]!.closed,
        "remote",
        "the cut listen ended on the client's side too",
      );
      for (const [i, stayer] of stayers.entries()) await updatedSince(stayer, marks[i]!, show(3));

      const again = stayers.map((stayer) => stayer.arrivals.length);
      assert.equal(
        (await writer.call("customers_rename", { id: 3, name: "Charles Babbage" })).isError,
        undefined,
      );
      for (const [i, stayer] of stayers.entries()) await updatedSince(stayer, again[i]!, show(3));
      assert.deepEqual(errors, [], "a client that left is not an error of the server");
    } finally {
      hold.release();
      await writer.close();
      for (const stayer of stayers) await stayer.close();
      for (const leaver of leavers) await leaver.client.close();
      await serving.close();
    }
  });
});

for (const protocol of PROTOCOLS) {
  describe(`a client that vanishes mid-listen in memory (${protocol})`, () => {
    it("closing its transport while a re-run is in flight empties its connection's registry and sends it nothing; a client of the same app keeps getting updates", async () => {
      const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
      const leaver = await testApp(counted.app).mcp({ protocol });
      const stayer = await testApp(counted.app).mcp({ protocol });
      const listenings: Listening[] = [
        await leaver.listen([show(1), show(2), SEARCH_ADA]),
        await leaver.listen([show(3), show(4)]),
      ];
      const staying = await stayer.listen([show(1), show(3)]);
      assert.equal(leaver.live.stats().subscriptions, 5);
      stderr.take();
      hold.ids.add(3);
      await counted.app.db.run("UPDATE customers SET name = 'Charles Babbage II' WHERE id = 3");
      await hold.entered;
      await leaver.client.transport!.close();
      await until(
        () => leaver.live.stats().subscriptions === 0,
        "the vanished connection's registry empties",
      );
      hold.release();
      await leaver.live.settled();
      await stayer.live.settled();
      assert.equal(leaver.live.stats().groups, 0);
      assert.equal(stayer.live.stats().subscriptions, 2);
      assert.equal(
        await staying.updates.next(3000),
        show(3),
        "the held re-run reached the client that stayed",
      );
      assert.equal(
        (await stayer.call("customers_rename", { id: 1, name: "Ada King" })).isError,
        undefined,
      );
      assert.equal(await staying.updates.next(3000), show(1));
      if (protocol === "2026-07-28")
        for (const listening of listenings) assert.equal(await listening.closed, "remote");
      assert.deepEqual(
        stderr.take(),
        [],
        "nothing reported: no update was sent to the closed transport",
      );
      await stayer.close();
      await leaver.close();
    });
  });
}

describe("a server shutdown with open listens and a re-run in flight", () => {
  it("over HTTP: every 2026-07-28 listen ends gracefully, 2025 subscriptions end, the registry empties, and later writes re-run nothing", async () => {
    const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
    const errors: string[] = [];
    const serving = await serveHttp(counted.app, {
      port: 0,
      onerror: (error) => void errors.push(error.message),
    });
    const watchers: Watcher[] = [];
    for (let i = 0; i < 6; i++) {
      const protocol: Protocol = i % 3 === 2 ? "2025-11-25" : "2026-07-28";
      watchers.push(
        await watch(
          serving.url,
          protocol,
          Array.from({ length: 8 }, (_, j) => show(i * 4 + j + 1)),
          `watcher ${i}`,
        ),
      );
    }
    assert.equal(serving.live.stats().subscriptions, 48);
    stderr.take();
    hold.ids.add(5);
    for (let id = 1; id <= 30; id++)
      await counted.app.db.run("UPDATE customers SET balance = balance + 1 WHERE id = ?", id);
    await hold.entered;
    const closing = serving.close();
    hold.release();
    await closing;
    assert.deepEqual(serving.live.stats().subscriptions, 0);
    const modern = watchers.filter((watcher) => watcher.protocol === "2026-07-28");
    assert.deepEqual(
      await Promise.all(modern.map((watcher) => watcher.closed)),
      modern.map(() => "graceful"),
    );
    await serving.live.settled();
    assert.equal(serving.live.stats().groups, 0);
    const { reruns } = serving.live.stats();
    await counted.app.db.run("UPDATE customers SET balance = balance + 1 WHERE id = 1");
    await serving.live.settled();
    assert.equal(serving.live.stats().reruns, reruns, "a closed server re-runs nothing");
    assert.deepEqual(errors, []);
    assert.deepEqual(stderr.take(), []);
    for (const watcher of watchers) await watcher.client.close();
  });

  for (const protocol of PROTOCOLS) {
    it(`in memory: every listen of the connection ends (${protocol}; gracefully on 2026-07-28), and the registry empties`, async () => {
      const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
      const mcp = await testApp(counted.app).mcp({ protocol });
      const listenings = [
        await mcp.listen([show(1), show(2)]),
        await mcp.listen([show(3), SEARCH_ADA]),
      ];
      stderr.take();
      hold.ids.add(2);
      for (let id = 1; id <= 10; id++)
        await counted.app.db.run("UPDATE customers SET balance = balance + 1 WHERE id = ?", id);
      await hold.entered;
      const stopping = mcp.stopServer();
      hold.release();
      await stopping;
      assert.equal(mcp.live.stats().subscriptions, 0);
      if (protocol === "2026-07-28")
        assert.deepEqual(await Promise.all(listenings.map((listening) => listening.closed)), [
          "graceful",
          "graceful",
        ]);
      await mcp.live.settled();
      assert.equal(mcp.live.stats().groups, 0);
      assert.deepEqual(stderr.take(), []);
      await mcp.close();
    });
  }
});

describe("a re-run that throws, with an onerror given to serveHttp", () => {
  it("is reported to onerror, with the command and its arguments, and not on stderr", async () => {
    const counted = countedExampleApp({ overrides: { customers_show: faultyShow } });
    const errors: string[] = [];
    const serving = await serveHttp(counted.app, {
      port: 0,
      onerror: (error) => void errors.push(error.message),
    });
    const watcher = await watch(serving.url, "2025-11-25", [show(1)], "watcher");
    try {
      stderr.take();
      armed.add(1);
      await counted.app.db.run("UPDATE customers SET balance = balance + 1 WHERE id = ?", 1);
      await until(() => errors.length > 0, "onerror hears of the failed re-run");
      await serving.live.settled();
      assert.deepEqual(errors, [
        "re-running customers_show(1) for its subscribers failed: re-run boom; the subscriptions stay",
      ]);
      assert.deepEqual(stderr.take(), []);
    } finally {
      await watcher.close();
      await serving.close();
    }
  });
});
