import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Client,
  InMemoryTransport,
  type ProtocolError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { createExampleApp } from "../../example/app.ts";
import type { SubscriptionLimits } from "../../packages/livecmd/runtime/live/limitDefaults.ts";
import type { LimitName } from "../../packages/livecmd/runtime/live/subscriptionLimits.ts";
import {
  serveHttp,
  serveStdio,
  type LiveStatus,
} from "../../packages/livecmd/runtime/server/index.ts";
import { ServedApp } from "../../packages/livecmd/runtime/server/served/servedApp.ts";
import { protocolError } from "../e2e/fixtures/protocolErrors.ts";

const shows = (...ids: number[]) => ids.map((id) => `app://customers_show/${id}`);

/** One way an agent watches URIs, through the live room behind it. */
interface Path {
  readonly name: string;
  readonly era: "2026-07-28" | "2025-11-25";
  readonly transport: "stdio" | "http";
}

const PATHS: readonly Path[] = [
  { name: "a stdio listen", era: "2026-07-28", transport: "stdio" },
  { name: "an HTTP listen", era: "2026-07-28", transport: "http" },
  { name: "resources/subscribe on stdio", era: "2025-11-25", transport: "stdio" },
  { name: "resources/subscribe in an HTTP session", era: "2025-11-25", transport: "http" },
];

/** What a client watches with one request (a listen) or one subscribe per URI, and its end. */
interface Watching {
  readonly watched: readonly string[];
  end(): Promise<void>;
}

interface Connected {
  watch(uris: readonly string[]): Promise<Watching>;
  readonly live: LiveStatus;
  close(): Promise<void>;
}

/** A real SDK client of the example app on SQLite, served on `path` with `limits`. */
async function connect(path: Path, limits: Partial<SubscriptionLimits>): Promise<Connected> {
  const app = createExampleApp(":memory:");
  const client = new Client(
    { name: "live-room", version: "0" },
    { versionNegotiation: { mode: path.era === "2026-07-28" ? { pin: path.era } : "legacy" } },
  );
  let serving: { live: LiveStatus; close(): Promise<void> };
  if (path.transport === "http") {
    const http = await serveHttp(app, { port: 0, limits });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    serving = http;
  } else {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serving = serveStdio(app, { transport: serverSide, limits });
    await client.connect(clientSide);
  }
  return {
    watch: (uris) => (path.era === "2026-07-28" ? listen(client, uris) : subscribe(client, uris)),
    live: serving.live,
    async close() {
      await client.close();
      await serving.close();
    },
  };
}

async function listen(client: Client, uris: readonly string[]): Promise<Watching> {
  const subscription = await client.listen({ resourceSubscriptions: [...uris] });
  return {
    watched: subscription.honoredFilter.resourceSubscriptions ?? [],
    end: () => subscription.close(),
  };
}

async function subscribe(client: Client, uris: readonly string[]): Promise<Watching> {
  for (const uri of uris) await client.subscribeResource({ uri });
  return {
    watched: uris,
    end: async () => {
      for (const uri of uris) await client.unsubscribeResource({ uri });
    },
  };
}

/** A limit error as every path words it: all but what the client was doing. */
function errorOf(error: ProtocolError) {
  const [reached] = error.message.split("; end a subscription before ");
  return { code: error.code, reached, data: error.data };
}

/** Resolves once `condition` holds: a listen's end reaches the server after the client's close. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(what);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Where each path's connection is full at 2 URIs, and the refusal it gets. */
const FULL: readonly { limits: Partial<SubscriptionLimits>; scope: LimitName; paths: Path[] }[] = [
  // An HTTP listen is its own connection, so only a limit beyond it stops a second listen.
  {
    limits: { perConnection: 2 },
    scope: "perConnection",
    paths: PATHS.filter((path) => path.name !== "an HTTP listen"),
  },
  { limits: { total: 2, perPrincipal: 2 }, scope: "total", paths: [...PATHS] },
];

describe("the live room: every path admits through one seam", () => {
  for (const { limits, scope, paths } of FULL) {
    it(`refuses a third URI over ${scope} with one error on every path, and takes it once one is ended`, async () => {
      const refusals: ReturnType<typeof errorOf>[] = [];
      for (const path of paths) {
        const connected = await connect(path, limits);
        const first = await connected.watch(shows(1, 2));
        assert.deepEqual(first.watched, shows(1, 2), path.name);
        refusals.push(errorOf(await protocolError(connected.watch(shows(3)), -32602)));
        await first.end();
        await eventually(
          () => connected.live.stats().subscriptions === 0,
          `${path.name}: the ended URIs are released`,
        );
        assert.deepEqual((await connected.watch(shows(3))).watched, shows(3), path.name);
        await connected.close();
      }
      const value = limits[scope];
      const expected = {
        code: -32602,
        reached: refusals[0]!.reached,
        data: { limit: value, scope },
      };
      assert.match(expected.reached!, new RegExp(`^Subscription limit reached: .* is ${value}$`));
      assert.deepEqual(
        refusals,
        paths.map(() => expected),
      );
    });
  }

  it("counts an HTTP listen as its own connection: one listen is cut at perConnection, the next has its own", async () => {
    const connected = await connect(PATHS[1]!, { perConnection: 2 });
    assert.deepEqual((await connected.watch(shows(1, 2, 3))).watched, shows(1, 2));
    assert.deepEqual((await connected.watch(shows(3))).watched, shows(3));
    await connected.close();
  });
});

const principal = (clientId: string): AuthInfo => ({ token: clientId, clientId, scopes: [] });

describe("the live room's seam, on a served app", () => {
  const room = (limits: Partial<SubscriptionLimits>) =>
    new ServedApp(createExampleApp(":memory:"), { limits }).room;

  it("listens to what a read serves, once, in order, up to the connection's room", async () => {
    const live = room({ perConnection: 3 });
    const watches = live.watches(() => {});
    const listened = await watches.listen(
      "a",
      [...shows(1, 1), "app://customers_show/x", "app://nope/1", ...shows(2, 3, 4)],
      undefined,
    );
    assert.deepEqual(listened, { watched: shows(1, 2, 3) });
    assert.equal(watches.size, 3);
    assert.equal(live.registry.stats().subscriptions, 3);
  });

  it("refuses alike on every entry, and gives the room back when a watch ends", async () => {
    const live = room({ perPrincipal: 2 });
    const ada = principal("ada");
    const listens = live.watches(() => {});
    const subscriptions = live.watches(() => {});
    await listens.listen("a", shows(1), ada);
    await subscriptions.subscribe(shows(2)[0]!, ada);
    const listenedOver = await listens.listen("b", shows(3), ada);
    assert.ok("refused" in listenedOver);
    const subscribedOver = await protocolError(subscriptions.subscribe(shows(3)[0]!, ada), -32602);
    assert.deepEqual(
      errorOf(subscribedOver),
      errorOf(live.wire.limitReached(listenedOver.refused)),
    );
    assert.deepEqual(subscribedOver.data, { limit: 2, scope: "perPrincipal" });
    // Another principal has its own share.
    assert.deepEqual(await listens.listen("b", shows(3), principal("grace")), {
      watched: shows(3),
    });
    subscriptions.end(shows(2)[0]!);
    await subscriptions.subscribe(shows(3)[0]!, ada);
    assert.equal(live.ledger.room("principal ada").room, 0);
    subscriptions.endAll();
    listens.endAll();
    assert.deepEqual(live.ledger.room("principal ada"), { room: 2, limit: "perPrincipal" });
    await eventually(() => live.registry.stats().subscriptions === 0, "the registry empties");
  });

  it("subscribes only to what a read serves, with the read's error", async () => {
    const served = new ServedApp(createExampleApp(":memory:"));
    const watches = served.room.watches(() => {});
    await assert.rejects(watches.subscribe("app://customers_show/x", undefined), /Invalid URI/);
    await assert.rejects(watches.subscribe("app://nope/1", undefined), /not found/i);
    assert.equal(watches.size, 0);
  });

  it("counts an HTTP listen's stream until it closes, once however often closed", async () => {
    const live = room({ listensPerPrincipal: 1 });
    const ada = principal("ada");
    const first = await live.openListen(shows(1), ada, () => {});
    assert.ok("close" in first);
    const second = await live.openListen(shows(2), ada, () => {});
    assert.ok("refused" in second);
    assert.deepEqual(live.wire.limitReached(second.refused).data, {
      limit: 1,
      scope: "listensPerPrincipal",
    });
    first.close();
    first.close();
    const third = await live.openListen(shows(2), ada, () => {});
    assert.deepEqual("watched" in third && third.watched, shows(2));
  });

  it("counts a listen or a watch call from its start: opened together past the total, one is refused", async () => {
    const live = room({ listensTotal: 1 });
    // Neither awaited before the other begins: the second is checked while the first's runs go on.
    const opened = await Promise.all([
      live.openWatch(shows(1), undefined, () => {}),
      live.openListen(shows(2), undefined, () => {}),
    ]);
    assert.ok("close" in opened[0]);
    assert.ok("refused" in opened[1]);
    assert.deepEqual(live.wire.limitReached(opened[1].refused).data, {
      limit: 1,
      scope: "listensTotal",
    });
    opened[0].close();
    const after = await live.openListen(shows(2), undefined, () => {});
    assert.ok("watched" in after, "a refused open holds nothing");
  });
});
