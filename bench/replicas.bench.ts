/**
 * Issue 23: three `livecmd serve --http` replicas on one PostgreSQL behind nginx (round-robin,
 * no affinity; `test/helpers/nginx.ts`, the configuration `docs/mcp.md` gives). A 2025-era SDK
 * client's reads through nginx against a client of one replica direct, measured in the same
 * rounds; commit → notify for a 2025 subscription made on another replica than the one holding
 * its GET stream; and the time from SIGKILL of the replica holding a subscription's stream (or a
 * 2026-07-28 listen) to the first notification of the write made right after it.
 *
 *   npm run bench -- replicas          # this row alone, printed, nothing written
 */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { startNginx, type Nginx } from "../test/helpers/nginx.ts";
import { emptyDatabase, postgresServer } from "../test/helpers/postgres.ts";
import { servedCli, type ServedCli } from "../test/helpers/servedCli.ts";
import { tokensFile } from "../test/helpers/tokensFile.ts";
import { wallClock } from "./lib/pgWatchers.ts";
import {
  figureOf,
  percentile,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

const READ_ROUNDS = 5;
const READS_PER_ROUND = 300;
const WRITES = 200;
const KILLS = 3;
const show = (id: number) => `app://customers_show/${id}`;

/** A 2025-era SDK client of `url`: its updates, stamped, and the replica of its GET stream. */
interface Subscriber {
  readonly client: Client;
  /** Wall-clock time of the next update of `uri`. */
  toldAbout(uri: string): Promise<number>;
  /** The replica (`host:port`) that answered the latest GET stream, and each subscribe. */
  streamOn(): string | undefined;
  readonly subscribedOn: Map<string, string>;
}

/**
 * Every client's token: behind a proxy, an endpoint without auth refuses what the proxy says it
 * forwarded (`X-Forwarded-For`), so the replicas authenticate, as docs/mcp.md tells; the client
 * that reads a replica direct does too, so both sides of the ratio pay it.
 */
const TOKEN = "bench-replicas-0123";
const authProvider = { token: async () => TOKEN };

async function subscriber(url: URL): Promise<Subscriber> {
  const client = new Client({ name: "bench-replicas", version: "1.0.0" });
  const waiting = new Map<string, (at: number) => void>();
  client.setNotificationHandler("notifications/resources/updated", ({ params }) => {
    const at = wallClock();
    waiting.get(params.uri)?.(at);
    waiting.delete(params.uri);
  });
  let stream: string | undefined;
  const subscribedOn = new Map<string, string>();
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const upstream = (response.headers.get("x-upstream") ?? "").split(", ").at(-1)!;
    if ((init?.method ?? "GET") === "GET" && response.ok) stream = upstream;
    if (typeof init?.body === "string") {
      const { method, params } = JSON.parse(init.body) as {
        method?: string;
        params?: { uri?: string };
      };
      if (method === "resources/subscribe") subscribedOn.set(params!.uri!, upstream);
    }
    return response;
  };
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: watched, authProvider }));
  return {
    client,
    toldAbout: (uri) => new Promise((resolve) => waiting.set(uri, resolve)),
    streamOn: () => stream,
    subscribedOn,
  };
}

async function until(done: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > ms) throw new Error(`bench replicas: ${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const replicasBench: BenchModule = {
  async run(context) {
    const server = postgresServer();
    if (server.skip) throw new Error(`the replicas bench needs PostgreSQL: ${server.skip}`);
    const databaseUrl = await emptyDatabase(server.url!);
    // One key for all, as docs/mcp.md asks: each replica resumes the listens the others primed.
    const env = { LIVECMD_REQUEST_STATE_KEY: randomBytes(32).toString("base64url") };
    const tokens = tokensFile(`${TOKEN} # bench\n`);
    const serve = (port?: string) => servedCli(["--tokens", tokens], { databaseUrl, port, env });
    const replicas: ServedCli[] = await Promise.all([1, 2, 3].map(() => serve()));
    let nginx: Nginx | undefined;
    const pool = new pg.Pool({ connectionString: databaseUrl });
    const clients: Client[] = [];
    try {
      nginx = await startNginx(replicas.map(({ url }) => url));
      context.log(`replicas: reads, ${READ_ROUNDS} rounds of ${READS_PER_ROUND} per client`);
      const reads = await measureReads(nginx.url, replicas[0]!.url, clients);
      context.log(`replicas: commit → notify, ${WRITES} writes`);
      const notify = await measureNotify(nginx.url, pool, clients);
      context.log(`replicas: SIGKILL → first notification, ${KILLS} kills`);
      const balanced = nginx.url;
      const kills = await measureKills(balanced, replicas, serve, pool, (kill) =>
        heldSubscription(balanced, clients, kill),
      );
      context.log(`replicas: SIGKILL → first notification of a 2026 listen, ${KILLS} kills`);
      const listenKills = await measureKills(balanced, replicas, serve, pool, (kill) =>
        heldListen(balanced, clients, kill),
      );
      return section(reads, notify, kills, listenKills);
    } finally {
      for (const client of clients) await client.close().catch(() => undefined);
      await nginx?.close();
      await Promise.all(replicas.map((replica) => replica.close()));
      await pool.end();
    }
  },
};

interface Reads {
  through: number[];
  direct: number[];
  throughRounds: number[];
  directRounds: number[];
}

/** One 2025 session through nginx and one to a replica direct, reading in alternate rounds. */
async function measureReads(balanced: URL, direct: URL, clients: Client[]): Promise<Reads> {
  const through = await subscriber(balanced);
  const alone = await subscriber(direct);
  clients.push(through.client, alone.client);
  const reads: Reads = { through: [], direct: [], throughRounds: [], directRounds: [] };
  const time = async (client: Client, into: number[]) => {
    const samples: number[] = [];
    for (let k = 0; k < READS_PER_ROUND; k++) {
      const started = performance.now();
      await client.readResource({ uri: show((k % 50) + 1) });
      samples.push((performance.now() - started) * 1000);
    }
    into.push(...samples);
    return figureOf("round", "µs", samples).median;
  };
  await time(through.client, []); // warm: every replica has loaded the session, statements planned
  await time(alone.client, []);
  for (let round = 0; round < READ_ROUNDS; round++) {
    const first = round % 2 === 0;
    const a = await time(
      first ? through.client : alone.client,
      first ? reads.through : reads.direct,
    );
    const b = await time(
      first ? alone.client : through.client,
      first ? reads.direct : reads.through,
    );
    reads.throughRounds.push(first ? a : b);
    reads.directRounds.push(first ? b : a);
  }
  return reads;
}

/**
 * A 2025 subscription made through nginx on another replica than the one holding its GET
 * stream, and `WRITES` renames on a plain pg connection, each waiting for its notification.
 */
async function measureNotify(balanced: URL, pool: pg.Pool, clients: Client[]): Promise<number[]> {
  const watcher = await subscriber(balanced);
  clients.push(watcher.client);
  await until(() => watcher.streamOn() !== undefined, "the GET stream opens");
  let uri: string | undefined;
  for (let id = 100; uri === undefined && id < 110; id++) {
    await watcher.client.subscribeResource({ uri: show(id) });
    if (watcher.subscribedOn.get(show(id)) !== watcher.streamOn()) uri = show(id);
  }
  if (!uri) throw new Error("bench replicas: every subscribe reached the stream's replica");
  const id = Number(uri.split("/").at(-1));
  const samples: number[] = [];
  for (let k = 0; k < WRITES; k++) {
    const told = watcher.toldAbout(uri);
    await pool.query({
      text: "UPDATE customers SET name = $1 WHERE id = $2",
      values: [`N${k}`, id],
    });
    const committedAt = wallClock();
    samples.push((await told) - committedAt);
  }
  return samples;
}

/** A watch one replica holds (`holder`, `host:port`), and when its client is told of customer `id`. */
interface Held {
  readonly holder: string | undefined;
  readonly id: number;
  readonly told: Promise<number>;
}

/**
 * `KILLS` times: a new watch through nginx (`hold`), SIGKILL of the replica holding it, a rename
 * right after; the time from the kill to the notification. The killed replica is started again
 * on its port before the next.
 */
async function measureKills(
  balanced: URL,
  replicas: ServedCli[],
  serve: (port: string) => Promise<ServedCli>,
  pool: pg.Pool,
  hold: (kill: number) => Promise<Held>,
): Promise<number[]> {
  const samples: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    const { holder, id, told } = await hold(kill);
    const index = replicas.findIndex(({ url }) => url.host === holder);
    const victim = replicas[index]!;
    const killedAt = wallClock();
    victim.child.kill("SIGKILL");
    await pool.query({
      text: "UPDATE customers SET name = $1 WHERE id = $2",
      values: [`Killed ${kill}`, id],
    });
    samples.push((await told) - killedAt);
    await victim.close();
    replicas[index] = await serve(victim.url.port);
    await backInRotation(balanced, victim.url.host);
  }
  return samples;
}

/**
 * Until nginx sends requests to `host` again: it skips a replica that refused a connection for
 * `fail_timeout` (10 s), and three kills within that time would leave it none to send to.
 */
async function backInRotation(balanced: URL, host: string): Promise<void> {
  for (let waited = 0; ; waited += 100) {
    const answer = await fetch(balanced, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await answer.body?.cancel();
    if ((answer.headers.get("x-upstream") ?? "").split(", ").at(-1) === host) return;
    if (waited > 30_000) throw new Error(`bench replicas: nginx never sent to ${host} again`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A new 2025 subscriber through nginx, held by the replica of its GET stream. */
async function heldSubscription(balanced: URL, clients: Client[], kill: number): Promise<Held> {
  const watcher = await subscriber(balanced);
  clients.push(watcher.client);
  const id = 200 + kill;
  await watcher.client.subscribeResource({ uri: show(id) });
  await until(() => watcher.streamOn() !== undefined, "the GET stream opens");
  return { holder: watcher.streamOn(), id, told: watcher.toldAbout(show(id)) };
}

/**
 * A new 2026-07-28 listen through nginx, held by the replica that answered it; the SDK's client
 * resumes it on another after the kill, which tells the write.
 */
async function heldListen(balanced: URL, clients: Client[], kill: number): Promise<Held> {
  const client = new Client(
    { name: "bench-replicas-listen", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  clients.push(client);
  const id = 210 + kill;
  const told = new Promise<number>((resolve) =>
    client.setNotificationHandler("notifications/resources/updated", ({ params }) => {
      if (params.uri === show(id)) resolve(wallClock());
    }),
  );
  let holder: string | undefined;
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (typeof init?.body === "string" && init.body.includes('"subscriptions/listen"'))
      holder = (response.headers.get("x-upstream") ?? "").split(", ").at(-1);
    return response;
  };
  await client.connect(
    new StreamableHTTPClientTransport(balanced, { fetch: watched, authProvider }),
  );
  await client.listen({ resourceSubscriptions: [show(id)] });
  return { holder, id, told };
}

function section(reads: Reads, notify: number[], kills: number[], listenKills: number[]): Section {
  const through = figureOf(
    "2025 read through nginx, 3 replicas, µs",
    "µs",
    reads.through,
    reads.throughRounds,
  );
  const direct = figureOf(
    "2025 read from one replica direct, µs",
    "µs",
    reads.direct,
    reads.directRounds,
  );
  const throughP99 = {
    ...through,
    label: "p99 2025 read through nginx, µs",
    median: percentile(reads.through, 0.99),
  };
  const directP99 = {
    ...direct,
    label: "p99 2025 read direct, µs",
    median: percentile(reads.direct, 0.99),
  };
  delete (throughP99 as Partial<Figure>).rounds;
  delete (directP99 as Partial<Figure>).rounds;
  const commit = figureOf(
    "commit → notify, 2025 subscription on another replica than its stream, ms",
    "ms",
    notify,
  );
  const killed = figureOf("SIGKILL of the stream's replica → first notification, ms", "ms", kills);
  const listenKilled = figureOf(
    "SIGKILL of a 2026 listen's replica → first notification (resumed), ms",
    "ms",
    listenKills,
  );
  const comparisons: Comparison[] = [
    ratio("replicas read p50: through nginx / one replica direct", through, direct),
    ratio("replicas read p99: through nginx / one replica direct", throughP99, directP99),
    { label: "replicas read p50 through nginx", value: through.median / 1000, unit: "ms" },
    { label: "replicas read p99 through nginx", value: throughP99.median / 1000, unit: "ms" },
    {
      label: "replicas commit → notify p50, subscribed on another replica",
      value: commit.median,
      unit: "ms",
    },
    {
      label: "replicas commit → notify p99, subscribed on another replica",
      value: percentile(notify, 0.99),
      unit: "ms",
    },
    { label: "replicas SIGKILL → first notification, median", value: killed.median, unit: "ms" },
    { label: "replicas SIGKILL → first notification, max", value: killed.max, unit: "ms" },
    {
      label: "replicas SIGKILL → first notification of a 2026 listen, median",
      value: listenKilled.median,
      unit: "ms",
    },
    {
      label: "replicas SIGKILL → first notification of a 2026 listen, max",
      value: listenKilled.max,
      unit: "ms",
    },
  ];
  return {
    title: "Replicas behind nginx: reads, cross-replica notify, recovery after SIGKILL",
    method: [
      "Three `livecmd serve --http` of the example app on one local PostgreSQL, nginx 1.22 round-robin in front (no affinity, buffering off), everything on the same 2 cores.",
      `Reads: one 2025-era SDK session through nginx and one to a replica direct, ${READ_ROUNDS} alternate rounds of ${READS_PER_ROUND} sequential resources/read of customers_show/1..50; the ratio is the median of the per-round ratios.`,
      `Commit → notify: a 2025 subscription made through nginx on a replica other than the one holding the session's GET stream; ${WRITES} single-row UPDATEs on a plain pg connection, each timed from its commit to the client's notification.`,
      `Recovery: ${KILLS} times, a fresh 2025 subscriber, SIGKILL of the replica holding its GET stream, an UPDATE right after; timed from the kill to the notification (the killed replica restarted on its port, and back in nginx's rotation, between samples).`,
      `Listen recovery: ${KILLS} times, a fresh 2026-07-28 listen through nginx, SIGKILL of the replica holding it, an UPDATE right after; timed from the kill to the notification, told by the replica the SDK's client resumed the listen on (GET with Last-Event-ID).`,
    ],
    figures: [through, direct, commit, killed, listenKilled],
    comparisons,
    notes: [
      "The recovery time is mostly the client's wait before reconnecting its GET stream: the server's `retry:` of 3 s; the new replica then loads the session, re-runs its subscriptions and notifies those whose result changed.",
      "A listen's recovery is the same wait: the SDK's client resumes the listen stream after `retry:`; the new replica reads the listen from its last event id, re-runs its URIs and notifies those whose result is not the one the client was last told of.",
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { createContext } = await import("./lib/context.ts");
  console.log(JSON.stringify(await replicasBench.run(createContext()), null, 2));
}
