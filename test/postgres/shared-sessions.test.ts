import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { exampleAppsOn } from "../helpers/exampleAppsOn.ts";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import { VERSION_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { initialize, messagesOf, openGetStream, sessionRequest } from "../helpers/rawStreams.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import type {
  SessionMessage,
  SessionStore,
} from "../../packages/livecmd/runtime/db/sharedState.ts";

const server = postgresServer();
/** Short, so that the sweeps (every third of it) come often; no assertion is timed by it. */
const IDLE_MS = 900;

/**
 * Until `check` holds, 30 s at most (a failure limit: the sweeps and NOTIFYs are not timed; with
 * logical decoding a change waits for its relay, which a busy cluster can cut off and restart).
 */
async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let waited = 0; !(await check()); waited += 20) {
    if (waited > 30_000) assert.fail(`${what} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A request about customer 1 on `session` at `url`. */
function aboutCustomer1(method: string, url: URL, session: string): Promise<Response> {
  return sessionRequest(url, session, { id: 2, method, params: { uri: "app://customers_show/1" } });
}

const read = (url: URL, session: string) => aboutCustomer1("resources/read", url, session);
const subscribe = (url: URL, session: string) =>
  aboutCustomer1("resources/subscribe", url, session);

/**
 * Two example apps served over HTTP on one fresh database, for the suite that calls it: made
 * before its tests, each ready (its change feed heard) so that a write reaches both, and
 * closed after them.
 */
function twoServingProcesses(options: { sessionIdleMs?: number }) {
  let databaseUrl = "";
  const apps: App[] = [];
  const serving: HttpServing[] = [];
  before(async () => {
    databaseUrl = await emptyDatabase(server.url!);
    apps.push(...exampleAppsOn(databaseUrl, 2));
    for (const app of apps) serving.push(await serveHttp(app, { port: 0, ...options }));
    for (const { url } of serving)
      await eventually(
        async () => (await fetch(new URL("/healthz", url))).status === 200,
        "ready on /healthz",
      );
  });
  after(async () => {
    for (const each of serving) await each.close({ drainMs: 0 });
    for (const app of apps) await app.close();
  });
  return { apps, serving, databaseUrl: () => databaseUrl };
}

describe(
  "2025 sessions shared by two serving processes on one PostgreSQL",
  { skip: server.skip },
  () => {
    const { serving, databaseUrl } = twoServingProcesses({ sessionIdleMs: IDLE_MS });
    const stored = (id: string) =>
      psql(databaseUrl(), `SELECT count(*) FROM livecmd.sessions WHERE id = '${id}'`);

    test("a session opened on one is answered by the other; a DELETE on either ends it on both", async () => {
      const [a, b] = serving.map(({ url }) => url) as [URL, URL];
      const { session } = await initialize(a);
      assert.ok(session);
      assert.equal(stored(session), "1");
      const fromB = await read(b, session);
      assert.equal(fromB.status, 200);
      assert.match(await fromB.text(), /"result"/);
      const deleted = await fetch(b, {
        method: "DELETE",
        headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      });
      assert.equal(deleted.status, 200);
      assert.equal(stored(session), "0");
      // The other process drops its copy when it hears of the end.
      await eventually(async () => (await read(a, session)).status === 404, "404 on the other");
    });

    test("a session idle on both is reclaimed by whichever sweeps first, then unknown to both", async () => {
      const [a, b] = serving.map(({ url }) => url) as [URL, URL];
      const { session } = await initialize(a);
      assert.ok(session);
      assert.equal((await read(b, session)).status, 200);
      await eventually(() => stored(session) === "0", "the row deleted");
      for (const url of [a, b]) {
        const answer = await read(url, session);
        assert.equal(answer.status, 404);
        assert.match(await answer.text(), /not found; initialize again/);
      }
    });

    test("an id no session has is 404 on a process that looks it up", async () => {
      const answer = await read(serving[1]!.url, "0b8e4e0e-0000-4000-8000-000000000000");
      assert.equal(answer.status, 404);
    });
  },
);

describe(
  "a 2025 subscription of a shared session, made on the process without its GET stream",
  { skip: server.skip },
  () => {
    const { serving, databaseUrl } = twoServingProcesses({});

    test("changed while no stream is open, it is told on the stream the client opens there next", async () => {
      const [a, b] = serving as [HttpServing, HttpServing];
      const { session } = await initialize(a.url);
      assert.ok(session);
      const first = new AbortController();
      const held = await openGetStream(a.url, session, undefined, undefined, first.signal);
      assert.equal(held.status, 200);
      // B watches it too (it subscribed there); A takes it up (it holds the stream).
      const subscribed = await subscribe(b.url, session);
      assert.equal(subscribed.status, 200);
      await eventually(() => a.live.stats().subscriptions === 1, "A watching it");
      first.abort();
      const notifications = () => a.live.stats().notifications + b.live.stats().notifications;
      const told = notifications();
      psql(databaseUrl(), "UPDATE customers SET name = 'While away' WHERE id = 1");
      // B re-runs it and notifies this session's copy there, whose client has no stream there;
      // or, when A's news that it took the stream reached B only after the subscribe (a loaded
      // machine), B let it go and A alone re-runs it. Either way no client was told.
      await eventually(() => notifications() > told, "a process re-running it");
      await Promise.all([a.live.settled(), b.live.settled()]);

      const update = (await firstUpdate(b.url, session)) as { uri: string; _meta?: object };
      assert.deepEqual(update, {
        uri: "app://customers_show/1",
        _meta: { [VERSION_META_KEY]: await versionRead(a.url, session) },
      });
    });
  },
);

describe(
  "a 2025 GET stream that ends before its process has told the others it holds it",
  { skip: server.skip },
  () => {
    const { apps, serving } = twoServingProcesses({});

    test("its subscriptions end after the grace, and are not taken up when the telling is done", async () => {
      const [a] = serving as [HttpServing];
      // Each call makes a store; the sessions' one is of the same class, patched for this test:
      // the telling held back (a busy database), and the reads a take-up starts with counted.
      const store = Object.getPrototypeOf(engineOf(apps[0]!).sharedSessions()) as SessionStore;
      const { tell, subscriptions } = store;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let told: Promise<void> | undefined;
      store.tell = function (this: SessionStore, message: SessionMessage) {
        if (!("stream" in message)) return tell.call(this, message);
        return (told = held.then(() => tell.call(this, message)));
      };
      let takeUps = 0;
      store.subscriptions = function (this: SessionStore, id: string) {
        takeUps++;
        return subscriptions.call(this, id);
      };
      after(() => Object.assign(store, { tell, subscriptions }));

      const { session } = await initialize(a.url);
      assert.ok(session);
      const subscribed = await subscribe(a.url, session);
      assert.equal(subscribed.status, 200);
      assert.equal(a.live.stats().subscriptions, 1);
      const stream = new AbortController();
      assert.equal(
        (await openGetStream(a.url, session, undefined, undefined, stream.signal)).status,
        200,
      );
      stream.abort();
      await eventually(
        () => a.live.stats().subscriptions === 0,
        "the subscription ended after the grace",
      );

      const before = takeUps;
      release();
      assert.ok(told, "the process told the others it holds the stream");
      await told;
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(takeUps, before, "no take-up began for the stream that ended");
      assert.equal(a.live.stats().subscriptions, 0);
    });
  },
);

/** The version a read of customer 1 on `session` at `url` returns. */
async function versionRead(url: URL, session: string): Promise<unknown> {
  const answer = await read(url, session);
  const text = await answer.text();
  const message = JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text) as {
    result: { contents: { _meta: Record<string, unknown> }[] };
  };
  return message.result.contents[0]!._meta[VERSION_META_KEY];
}

/** The params of the first `notifications/resources/updated` on `session`'s GET stream at `url`, 10 s at most. */
async function firstUpdate(url: URL, session: string): Promise<unknown> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 10_000);
  try {
    const stream = await openGetStream(url, session, undefined, undefined, stop.signal);
    assert.equal(stream.status, 200);
    for await (const message of messagesOf(stream))
      if (message.method === "notifications/resources/updated") return message.params;
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return undefined;
}
