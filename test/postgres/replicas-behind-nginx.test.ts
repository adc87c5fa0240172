import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { after, before, describe, test } from "node:test";
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientOptions,
  type ElicitResult,
  type McpSubscription,
} from "@modelcontextprotocol/client";
import { nginxMissing, startNginx, type Nginx } from "../helpers/nginx.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const server = postgresServer();
const missing = server.skip ?? nginxMissing();
const show = (id: number) => `app://customers_show/${id}`;

/**
 * Every client's token: behind a proxy, an endpoint without auth refuses what the proxy says it
 * forwarded (`X-Forwarded-For`), so the replicas authenticate, as docs/mcp.md tells.
 */
const TOKEN = "replicas-secret-0123";
const TOKENS = `${TOKEN} customers:write orders:write # replicas\n`;

/** An SDK client through the balancer, with the updates it heard and the replica of each stream. */
interface Balanced {
  readonly client: Client;
  readonly updates: string[];
  /** The replica (`host:port`) that answered the latest GET stream (2025) or listen (2026). */
  streamOn(): string | undefined;
  /** The replica that answered each request, by JSON-RPC method, and the HTTP status. */
  readonly answeredBy: { method: string; upstream: string; status: number }[];
  /** What the client's transport reported (a stream lost, a reconnection given up). */
  readonly errors: string[];
}

/**
 * `elicit`: the person behind the client, who answers each question (a confirmation); `manual`:
 * a 2026-07-28 client that hands `input_required` back instead of asking anyone.
 */
async function balanced(
  url: URL,
  era: "2025" | "2026",
  person: { elicit?: () => ElicitResult; manual?: true } = {},
): Promise<Balanced> {
  const client = new Client({ name: `replicas-${era}`, version: "1.0.0" }, {
    ...(era === "2026" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
    ...((person.elicit || person.manual) && { capabilities: { elicitation: { form: {} } } }),
    ...(person.manual && { inputRequired: { autoFulfill: false } }),
  } satisfies ClientOptions);
  if (person.elicit) client.setRequestHandler("elicitation/create", person.elicit);
  const updates: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    updates.push(notification.params.uri);
  });
  const answeredBy: Balanced["answeredBy"] = [];
  const errors: string[] = [];
  let stream: string | undefined;
  // The SDK's own fetch, watched: nginx names the replica that answered in X-Upstream.
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    // nginx lists every replica it tried ("refused, answered"): the last one answered.
    const upstream = (response.headers.get("x-upstream") ?? "").split(", ").at(-1)!;
    // A POST of an answer (a response to the server's request) has no method: "answer".
    const method =
      typeof init?.body === "string"
        ? ((JSON.parse(init.body) as { method?: string }).method ?? "answer")
        : (init?.method ?? "GET");
    // The streams that carry updates: a 2025 session's GET stream, a 2026 listen.
    if (
      (method === "GET" || method === "subscriptions/listen") &&
      response.headers.get("content-type")?.startsWith("text/event-stream")
    )
      stream = upstream;
    answeredBy.push({ method, upstream, status: response.status });
    return response;
  };
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      fetch: watched,
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  client.onerror = (error) => errors.push(error.message);
  return { client, updates, streamOn: () => stream, answeredBy, errors };
}

/** The replica holding the client's GET stream, once it is open (the SDK opens it after initialize). */
async function streamHolder(balanced: Balanced): Promise<string> {
  for (let waited = 0; balanced.streamOn() === undefined && waited < 5000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const holder = balanced.streamOn();
  assert.ok(holder, "the GET stream did not open");
  return holder;
}

/** A listen of `uris` that `replica` answered: round-robin reaches it within a few tries. */
async function listenOn(
  modern: Balanced,
  uris: string[],
  replica: string,
): Promise<McpSubscription> {
  let listen = await modern.client.listen({ resourceSubscriptions: uris });
  for (let tries = 0; modern.streamOn() !== replica && tries < 6; tries++) {
    await listen.close();
    // The close's cancel took a turn of the round-robin: one more request shifts it.
    await modern.client.readResource({ uri: show(1) });
    listen = await modern.client.listen({ resourceSubscriptions: uris });
  }
  assert.equal(modern.streamOn(), replica);
  return listen;
}

/** Until `updates` holds `uri`, `seconds` at most (a failure limit, not a timed assertion). */
async function heard(by: Balanced, uri: string, seconds = 5): Promise<void> {
  for (let waited = 0; !by.updates.includes(uri) && waited < seconds * 1000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  // Unheard, what the client's requests met says where the update was lost.
  assert.ok(
    by.updates.includes(uri),
    `expected an update of ${uri}, got ${JSON.stringify(by.updates)}; its transport reported ${JSON.stringify(by.errors)}; its requests: ${JSON.stringify(by.answeredBy.slice(-12))}`,
  );
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
      // One key for all: each replica resumes the listens the others primed.
      const env = { LIVECMD_REQUEST_STATE_KEY: randomBytes(32).toString("base64url") };
      replicas.push(
        ...(await Promise.all(
          [1, 2, 3].map(() => servedCli(["--tokens", tokensFile(TOKENS)], { databaseUrl, env })),
        )),
      );
      nginx = await startNginx(replicas.map(({ url }) => url));
      writer = await balanced(nginx.url, "2026");
      clients.push(writer);
    });

    after(async () => {
      for (const { client } of clients) await client.close().catch(() => undefined);
      await nginx?.close();
      await Promise.all(replicas.map((replica) => replica.close()));
    });

    /** A 2025 subscription to `subscribed` and a 2026 listen of `listened`, held by one replica. */
    async function bothOnOneReplica(subscribed: string, listened: string[]) {
      const legacy = await balanced(nginx.url, "2025");
      clients.push(legacy);
      await legacy.client.subscribeResource({ uri: subscribed });
      const replica = await streamHolder(legacy);
      const modern = await balanced(nginx.url, "2026");
      clients.push(modern);
      return { legacy, modern, replica, listen: await listenOn(modern, listened, replica) };
    }

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
      const stream = await streamHolder(legacy);
      const elsewhere = legacy.answeredBy.filter(
        ({ method, upstream }) => method === "resources/subscribe" && upstream !== stream,
      );
      assert.ok(elsewhere.length >= 1, `every subscribe went to ${stream}`);
      for (let id = 2; id <= 4; id++) await rename(writer.client, id, `Renamed ${id}`);
      for (let id = 2; id <= 4; id++) await heard(legacy, show(id));
      legacy.updates.length = 0;
      psql(databaseUrl, "UPDATE customers SET name = 'From psql' WHERE id = 3");
      await heard(legacy, show(3));
      await legacy.client.unsubscribeResource({ uri: show(3) });
      legacy.updates.length = 0;
      await rename(writer.client, 3, "After unsubscribe");
      await rename(writer.client, 2, "Told");
      await heard(legacy, show(2));
      assert.ok(!legacy.updates.includes(show(3)), JSON.stringify(legacy.updates));
    });

    test("a 2026 listen through the balancer is notified of a write made through another replica", async () => {
      const modern = await balanced(nginx.url, "2026");
      clients.push(modern);
      const listen = await modern.client.listen({ resourceSubscriptions: [show(5)] });
      assert.deepEqual(listen.honoredFilter.resourceSubscriptions, [show(5)]);
      await rename(writer.client, 5, "Listened");
      await heard(modern, show(5));
      await listen.close();
    });

    test("a 2025 confirmation asked by one replica and answered through another runs the command once", async () => {
      let asked = 0;
      const confirming = await balanced(nginx.url, "2025", {
        elicit: () => {
          asked += 1;
          return { action: "accept", content: {} };
        },
      });
      clients.push(confirming);
      // Round-robin sends the answer to the next replica; a GET reconnect between the two could
      // put it on the same one, so the call is made again (another customer) until it is not.
      let call: { upstream: string } | undefined;
      let answer: { upstream: string } | undefined;
      for (let id = 11; id <= 14 && call?.upstream === answer?.upstream; id++) {
        const made = confirming.answeredBy.length;
        const result = (await confirming.client.callTool({
          name: "customers_delete",
          arguments: { id },
        })) as CallToolResult;
        assert.equal(result.isError, undefined, JSON.stringify(result.content));
        assert.equal((result.structuredContent as { id: number }).id, id);
        assert.equal(psql(databaseUrl, `SELECT count(*) FROM customers WHERE id = ${id}`), "0");
        const exchange = confirming.answeredBy.slice(made);
        call = exchange.find(({ method }) => method === "tools/call");
        answer = exchange.find(({ method }) => method === "answer");
      }
      assert.ok(call && answer, JSON.stringify(confirming.answeredBy));
      assert.notEqual(answer.upstream, call.upstream);
      assert.equal(asked, confirming.answeredBy.filter(({ method }) => method === "answer").length);
    });

    test("a 2026 yes is spent once across replicas: sent again through another, it is refused and nothing runs twice", async () => {
      const manual = await balanced(nginx.url, "2026", { manual: true });
      clients.push(manual);
      const call = { name: "customers_delete", arguments: { id: 15 } };
      const question = (await manual.client.callTool(call, {
        allowInputRequired: true,
      } as never)) as unknown as { requestState: string };
      const yes = {
        ...call,
        inputResponses: { confirm: { action: "accept", content: {} } },
        requestState: question.requestState,
      };
      const ran = (await manual.client.callTool(yes as never)) as CallToolResult;
      assert.equal(ran.isError, undefined, JSON.stringify(ran.content));
      const replayed = (await manual.client.callTool(yes as never)) as CallToolResult;
      assert.equal(replayed.isError, true);
      assert.match(
        (replayed.content[0] as { text: string }).text,
        /^This confirmation of customers_delete was already used/,
      );
      const [first, again] = manual.answeredBy
        .filter(({ method }) => method === "tools/call")
        .slice(-2);
      assert.notEqual(again!.upstream, first!.upstream);
    });

    test("every replica is ready on /healthz: its database answers and its change feed is heard", async () => {
      for (const { url } of replicas) {
        const answer = await fetch(new URL("/healthz", url));
        assert.equal(answer.status, 200);
        assert.deepEqual(await answer.json(), { status: "ok" });
      }
    });

    test("SIGTERM drains a replica: no request through the balancer fails, it exits 0, and what it held is told of the next write", async () => {
      const held = await bothOnOneReplica(show(8), [show(9)]);
      const { legacy, modern, replica: drained } = held;
      let listen = held.listen;

      // Two readers, one per era, keep requests in flight through the drain.
      const readers = await Promise.all([balanced(nginx.url, "2025"), balanced(nginx.url, "2026")]);
      clients.push(...readers);
      let reading = true;
      const failures: string[] = [];
      let reads = 0;
      const loops = readers.map(async ({ client }) => {
        while (reading) {
          await client.readResource({ uri: show(1) }).then(
            () => (reads += 1),
            (error: Error) => failures.push(error.message),
          );
        }
      });
      const victim = replicas.find(({ url }) => url.host === drained)!;
      const readsBefore = reads;
      victim.child.kill("SIGTERM");
      const [code] = (await once(victim.child, "exit")) as [number | null];
      assert.equal(code, 0, victim.stderr());
      assert.equal(await listen.closed, "graceful");
      const readsDuring = reads - readsBefore;
      // Reads go on after the replica is gone, through the two left.
      for (const target = reads + 20; reads < target && failures.length === 0;)
        await new Promise((resolve) => setTimeout(resolve, 20));
      reading = false;
      await Promise.all(loops);
      assert.deepEqual(failures, []);
      assert.ok(readsDuring >= 0);

      listen = await modern.client.listen({ resourceSubscriptions: [show(9)] });
      await rename(writer.client, 8, "After the drain");
      await rename(writer.client, 9, "After the drain");
      await heard(legacy, show(8), 20);
      await heard(modern, show(9), 20);
      assert.notEqual(legacy.streamOn(), drained);
      await listen.close();
    });

    test("SIGKILL of the replica holding a 2025 stream and a 2026 listen: the 2025 stream is taken up, the listen resumed on another replica, and each is told of the write made meanwhile", async () => {
      const held = await bothOnOneReplica(show(6), [show(7), show(10)]);
      const { legacy, modern, replica: doomed, listen } = held;

      const victim = replicas.find(({ url }) => url.host === doomed)!;
      victim.child.kill("SIGKILL");
      await once(victim.child, "exit");
      // Written while nobody holds the subscription or the listen; show(10) is left as it was.
      await rename(writer.client, 6, "After the kill");
      await rename(writer.client, 7, "After the kill");
      // The 2025 client's GET stream reconnects (retry: 3 s) to a replica alive, which takes the
      // subscription up, re-runs it and tells the change it missed. The 2026 client's transport
      // resumes the listen stream the same way (GET, Last-Event-ID): the replica it reaches
      // re-opens the listen from the id, re-runs its URIs and tells the one that changed.
      await heard(legacy, show(6), 20);
      await heard(modern, show(7), 20);
      assert.notEqual(legacy.streamOn(), doomed);
      assert.notEqual(modern.streamOn(), doomed);
      const resumption = modern.answeredBy.at(-1)!;
      assert.equal(resumption.method, "GET");
      // The listen never ended, and goes on where it was resumed.
      const ended = await Promise.race([
        listen.closed,
        new Promise((r) => setTimeout(r, 0, "open")),
      ]);
      assert.equal(ended, "open");
      const told = modern.updates.length;
      await rename(writer.client, 7, "After the resumption");
      for (let waited = 0; modern.updates.length === told && waited < 5000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(modern.updates.slice(told), [show(7)]);
      // show(10) would have been told with show(7) at the resumption had it changed: it was not.
      assert.ok(!modern.updates.includes(show(10)), JSON.stringify(modern.updates));
      // The session itself goes on, on the replicas left.
      const { contents } = await legacy.client.readResource({ uri: show(6) });
      assert.match(JSON.stringify(contents), /After the kill/);
      await listen.close();
    });
  },
);
