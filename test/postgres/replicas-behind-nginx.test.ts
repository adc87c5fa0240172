import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from "@modelcontextprotocol/client";
import { nginxMissing, startNginx, type Nginx } from "../helpers/nginx.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";

const server = postgresServer();
const missing = server.skip ?? nginxMissing();
const show = (id: number) => `app://customers_show/${id}`;

/** An SDK client through the balancer, with the updates it heard and the replica of each stream. */
interface Balanced {
  readonly client: Client;
  readonly updates: string[];
  /** The replica (`host:port`) that answered the latest event stream: a GET stream or a listen. */
  streamOn(): string | undefined;
  /** The replica that answered each request, by JSON-RPC method. */
  readonly answeredBy: { method: string; upstream: string }[];
}

async function balanced(url: URL, era: "2025" | "2026"): Promise<Balanced> {
  const client = new Client(
    { name: `replicas-${era}`, version: "1.0.0" },
    era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const updates: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    updates.push(notification.params.uri);
  });
  const answeredBy: { method: string; upstream: string }[] = [];
  let stream: string | undefined;
  // The SDK's own fetch, watched: nginx names the replica that answered in X-Upstream.
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const upstream = response.headers.get("x-upstream") ?? "";
    if (response.headers.get("content-type")?.startsWith("text/event-stream")) stream = upstream;
    const method =
      typeof init?.body === "string"
        ? ((JSON.parse(init.body) as { method?: string }).method ?? "")
        : (init?.method ?? "GET");
    answeredBy.push({ method, upstream });
    return response;
  };
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: watched }));
  return { client, updates, streamOn: () => stream, answeredBy };
}

/** Until `updates` holds `uri`, `seconds` at most (a failure limit, not a timed assertion). */
async function heard(updates: string[], uri: string, seconds = 5): Promise<void> {
  for (let waited = 0; !updates.includes(uri) && waited < seconds * 1000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(updates.includes(uri), `expected an update of ${uri}, got ${JSON.stringify(updates)}`);
}

async function rename(writer: Client, id: number, name: string): Promise<void> {
  const result = (await writer.callTool({
    name: "customers_rename",
    arguments: { id, name },
  })) as CallToolResult;
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
}

describe(
  "three replicas on one PostgreSQL behind nginx, round-robin, no affinity",
  { skip: missing },
  () => {
    let databaseUrl: string;
    const replicas: ServedCli[] = [];
    let nginx: Nginx;
    let writer: Balanced;
    const clients: Balanced[] = [];

    before(async () => {
      databaseUrl = await emptyDatabase(server.url!);
      replicas.push(...(await Promise.all([1, 2, 3].map(() => servedCli([], { databaseUrl })))));
      nginx = await startNginx(replicas.map(({ url }) => url));
      writer = await balanced(nginx.url, "2026");
      clients.push(writer);
    });

    after(async () => {
      for (const { client } of clients) await client.close().catch(() => undefined);
      await nginx?.close();
      await Promise.all(replicas.map((replica) => replica.close()));
    });

    test("a 2025 session is answered by every replica in turn, never 404", async () => {
      const legacy = await balanced(nginx.url, "2025");
      clients.push(legacy);
      for (let read = 0; read < 6; read++) {
        const { contents } = await legacy.client.readResource({ uri: show(1) });
        assert.equal(contents.length, 1);
      }
      const reads = legacy.answeredBy.filter(({ method }) => method === "resources/read");
      assert.equal(new Set(reads.map(({ upstream }) => upstream)).size, 3, JSON.stringify(reads));
      assert.deepEqual(
        nginx.log().filter((line) => / 404 /.test(line)),
        [],
      );
    });

    test("2025 subscriptions made on other replicas than the stream's are notified of writes through a third, and of psql", async () => {
      const legacy = await balanced(nginx.url, "2025");
      clients.push(legacy);
      // The GET stream opens after initialize; three subscribes go to three replicas in turn.
      for (let id = 2; id <= 4; id++) await legacy.client.subscribeResource({ uri: show(id) });
      const stream = legacy.streamOn();
      const elsewhere = legacy.answeredBy.filter(
        ({ method, upstream }) => method === "resources/subscribe" && upstream !== stream,
      );
      assert.ok(elsewhere.length >= 1, `every subscribe went to ${stream}`);
      for (let id = 2; id <= 4; id++) await rename(writer.client, id, `Renamed ${id}`);
      for (let id = 2; id <= 4; id++) await heard(legacy.updates, show(id));
      legacy.updates.length = 0;
      psql(databaseUrl, "UPDATE customers SET name = 'From psql' WHERE id = 3");
      await heard(legacy.updates, show(3));
      await legacy.client.unsubscribeResource({ uri: show(3) });
      legacy.updates.length = 0;
      await rename(writer.client, 3, "After unsubscribe");
      await rename(writer.client, 2, "Told");
      await heard(legacy.updates, show(2));
      assert.ok(!legacy.updates.includes(show(3)), JSON.stringify(legacy.updates));
    });

    test("a 2026 listen through the balancer is notified of a write made through another replica", async () => {
      const modern = await balanced(nginx.url, "2026");
      clients.push(modern);
      const listen = await modern.client.listen({ resourceSubscriptions: [show(5)] });
      assert.deepEqual(listen.honoredFilter.resourceSubscriptions, [show(5)]);
      await rename(writer.client, 5, "Listened");
      await heard(modern.updates, show(5));
      await listen.close();
    });

    test("SIGKILL of the replica holding a 2025 stream and a 2026 listen: both are notified of the next write", async () => {
      const legacy = await balanced(nginx.url, "2025");
      clients.push(legacy);
      await legacy.client.subscribeResource({ uri: show(6) });
      const doomed = legacy.streamOn();
      assert.ok(doomed);
      // A listen on the same replica: round-robin reaches it within three tries.
      const modern = await balanced(nginx.url, "2026");
      clients.push(modern);
      let listen = await modern.client.listen({ resourceSubscriptions: [show(7)] });
      for (let tries = 0; modern.streamOn() !== doomed && tries < 6; tries++) {
        await listen.close();
        listen = await modern.client.listen({ resourceSubscriptions: [show(7)] });
      }
      assert.equal(modern.streamOn(), doomed);

      const victim = replicas.find(({ url }) => url.host === doomed)!;
      victim.child.kill("SIGKILL");
      assert.equal(await listen.closed, "remote");
      // The 2026 client opens its listen again, through the balancer, on a replica alive.
      listen = await modern.client.listen({ resourceSubscriptions: [show(7)] });
      assert.notEqual(modern.streamOn(), doomed);

      await rename(writer.client, 6, "After the kill");
      await rename(writer.client, 7, "After the kill");
      // The 2025 client's GET stream reconnects (retry: 3 s) to a replica alive, which takes the
      // subscription up, re-runs it and tells the change it missed.
      await heard(legacy.updates, show(6), 20);
      await heard(modern.updates, show(7), 20);
      assert.notEqual(legacy.streamOn(), doomed);
      // The session itself goes on, on the replicas left.
      const { contents } = await legacy.client.readResource({ uri: show(6) });
      assert.match(JSON.stringify(contents), /After the kill/);
      await listen.close();
    });
  },
);
